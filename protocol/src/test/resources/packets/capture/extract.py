import json, os
OUT = '/work/main/protocol/src/test/resources/packets'
def load(f): return [json.loads(l) for l in open('/tmp/sgcap/' + f)]
cli, ps, dep, denied = load('cli.jsonl'), load('ps.jsonl'), load('ps_deprecate.jsonl'), load('denied.jsonl')
SERVER = 'MariaDB 10.11.19-MariaDB-0+deb12u1 (mariadbd --no-defaults, TCP 127.0.0.1)'
HOW = {
 'cli': "the mariadb CLI 10.11 (libmariadb; `mariadb -h127.0.0.1 -P33918 -usg -psecret --skip-ssl sgtest -e ...`)",
 'ps': 'capture/psclient.py (raw-socket client, caps 0x000ea209: no DEPRECATE_EOF, no MariaDB extensions)',
 'dep': 'capture/psclient.py deprecate_eof (caps 0x010ea209: CLIENT_DEPRECATE_EOF)',
 'denied': 'the mariadb CLI 10.11 with a user that an anonymous account shadowed (access denied)',
}
def write(name, how, packets, note=''):
    with open(os.path.join(OUT, name + '.hex'), 'w') as f:
        f.write(f'# Captured from {SERVER} by capture/recorder.py (TCP relay logging each frame), client: {HOW[how]}.\n')
        if note: f.write(f'# {note}\n')
        f.write('# Format: direction (c2s client to server, s2c server to client), sequence id, payload hex.\n')
        for p in packets:
            f.write(f"{p['dir']} {p['seq']} {p['hex']}\n")
def s2c(log): return [p for p in log if p['dir'] == 's2c']
def c2s(log): return [p for p in log if p['dir'] == 'c2s']

write('handshake-v10', 'cli', [cli[0]], 'MariaDB clears CLIENT_LONG_PASSWORD and puts extended capabilities in the reserved bytes.')
write('handshake-response41', 'cli', [cli[1]], 'Auth response to the scramble above for password "secret"; connection attributes; MariaDB extended caps.')
write('handshake-response41-denied', 'denied', [denied[1]])
write('err-access-denied', 'denied', [denied[2]], 'Sent in reply to the handshake response.')
write('ok-after-auth', 'cli', [cli[2]], 'CLIENT_SESSION_TRACK: SERVER_SESSION_STATE_CHANGED with a schema change to sgtest.')
ins = [p for p in cli if p['dir'] == 's2c' and p['hex'].startswith('00') and '5265636f726473' in p['hex']]
write('ok-insert-info', 'cli', ins, 'CLIENT_SESSION_TRACK: OK of a 2-row INSERT with info text.')
# text result set from the CLI session (EXTENDED_TYPE_INFO negotiated)
sel = next(i for i, p in enumerate(cli) if p['dir'] == 'c2s' and bytes.fromhex(p['hex']).startswith(b'\x03SELECT id'))
rs = [cli[sel]]
for p in cli[sel+1:]:
    if p['dir'] != 's2c': break
    rs.append(p)
write('text-resultset-mariadb-ext', 'cli', rs, 'COM_QUERY, column count, 6 column definitions with MARIADB_CLIENT_EXTENDED_TYPE_INFO, EOF, 2 text rows, EOF.')
err = [p for p in cli if p['dir'] == 's2c' and p['hex'].startswith('ff')]
write('err-no-such-table', 'cli', [p for p in cli if p['dir']=='c2s' and bytes.fromhex(p['hex']).startswith(b'\x03SELECT * FROM nosuch')] + err)
write('com-quit', 'cli', [cli[-1]])
# psclient session: commands and prepared statements
def exchange(log, prefix):
    i = next(i for i, p in enumerate(log) if p['dir'] == 'c2s' and p['hex'].startswith(prefix))
    seqs = []
    out = [log[i]]
    # server packets following, in order, until a seq resets (next command)
    rest = [p for p in log[i+1:] if p['dir'] == 's2c']
    last = 0
    for p in rest:
        if p['seq'] <= last: break
        out.append(p); last = p['seq']
    return out
write('text-resultset', 'ps', exchange(ps, '0353454c4543542031'), "COM_QUERY \"SELECT 1 AS one, 'two' AS two\", column count, 2 column definitions, EOF, 1 row, EOF.")
write('com-init-db', 'ps', exchange(ps, '02'), 'COM_INIT_DB and its OK.')
write('com-ping', 'ps', exchange(ps, '0e'), 'COM_PING and its OK.')
write('stmt-prepare-response', 'ps', exchange(ps, '16'), 'COM_STMT_PREPARE, COM_STMT_PREPARE_OK, 1 parameter definition, EOF, 26 column definitions, EOF.')
write('binary-resultset', 'ps', exchange(ps, '17'), 'COM_STMT_EXECUTE (id >= 1 as LONGLONG), column count, 26 column definitions, EOF, 4 binary rows, EOF. Table: capture/psclient.py.')
write('com-stmt-close', 'ps', [p for p in ps if p['dir']=='c2s' and p['hex'].startswith('19')])
write('deprecate-eof-text-resultset', 'dep', exchange(dep, '0353454c4543542031'), 'CLIENT_DEPRECATE_EOF: no EOF after the column definitions; an OK_Packet with header 0xFE ends the rows.')
write('deprecate-eof-binary-resultset', 'dep', exchange(dep, '17'), 'CLIENT_DEPRECATE_EOF: COM_STMT_EXECUTE, column count, definitions, 4 binary rows, OK 0xFE.')
write('deprecate-eof-stmt-prepare-response', 'dep', exchange(dep, '16'), 'CLIENT_DEPRECATE_EOF: COM_STMT_PREPARE_OK and definitions without EOF packets.')
tt = load('text_types.jsonl')
HOW['tt'] = 'capture/psclient.py text_types (caps 0x000ea209)'
write('text-resultset-types', 'tt', exchange(tt, '0353454c454354202a'), 'COM_QUERY "SELECT * FROM types ORDER BY id", column count, 26 column definitions, EOF, 4 text rows, EOF. Table: capture/psclient.py.')
