#!/usr/bin/env python3
"""Records real server responses as hex fixtures for ResponseScannerTest.

A minimal MySQL client over TCP (HandshakeResponse41, mysql_native_password) that sends one
command per fixture and stores every byte the server sent back, one frame per line. A response
is read until the server has been silent for 0.5 s, so the recording does not depend on knowing
where a response ends (the thing under test). Run against a throwaway server:

  mariadb-install-db --no-defaults --datadir=/tmp/rs/db --user=root
  mariadbd --no-defaults --datadir=/tmp/rs/db --port=3411 --bind-address=127.0.0.1 \
      --socket=/tmp/rs/sock --user=root --local-infile=1 &
  mariadb --socket=/tmp/rs/sock -uroot -e "CREATE USER rec IDENTIFIED BY 'recpw';
      GRANT ALL ON *.* TO rec; CREATE DATABASE t"
  python3 record.py 127.0.0.1 3411 .

`python3 record.py 127.0.0.1 3411 . calls` records only the multi-result CALL fixtures
(call-*.hex, execute-call-*.hex; issue 23), leaving the others as they are.
"""
import hashlib
import socket
import struct
import sys

LONG_PASSWORD = 0x1  # also tells MariaDB "CLIENT_MYSQL": no MariaDB extended capabilities
CONNECT_WITH_DB = 0x8
LOCAL_FILES = 0x80
PROTOCOL_41 = 0x200
TRANSACTIONS = 0x2000
SECURE_CONNECTION = 0x8000
MULTI_STATEMENTS = 0x10000
MULTI_RESULTS = 0x20000
PS_MULTI_RESULTS = 0x40000
PLUGIN_AUTH = 0x80000
DEPRECATE_EOF = 0x1000000
BASE_CAPS = (LONG_PASSWORD | CONNECT_WITH_DB | LOCAL_FILES | PROTOCOL_41 | TRANSACTIONS
             | SECURE_CONNECTION | MULTI_STATEMENTS | MULTI_RESULTS | PS_MULTI_RESULTS | PLUGIN_AUTH)


class Conn:
    def __init__(self, host, port, caps):
        self.s = socket.create_connection((host, port))
        self.caps = caps
        hs = self.packet()
        version_end = hs.index(b"\0", 1)
        self.version = hs[1:version_end].decode()
        p = version_end + 1 + 4
        seed = hs[p:p + 8]
        p += 8 + 1
        server_caps = struct.unpack_from("<H", hs, p)[0]
        p += 2 + 1 + 2
        server_caps |= struct.unpack_from("<H", hs, p)[0] << 16
        p += 2
        auth_len = hs[p]
        p += 1 + 10
        seed += hs[p:p + max(13, auth_len - 8) - 1]
        self.caps &= server_caps
        pw = b"recpw"
        h1 = hashlib.sha1(pw).digest()
        h2 = hashlib.sha1(h1).digest()
        token = bytes(a ^ b for a, b in zip(h1, hashlib.sha1(seed + h2).digest()))
        resp = struct.pack("<IIB23x", self.caps, 1 << 24, 45) + b"rec\0" + bytes([len(token)]) + token
        resp += b"t\0mysql_native_password\0"
        self.send(resp, 1)
        ok = self.packet()
        assert ok[0] == 0, ok

    def send(self, payload, seq=0):
        self.s.sendall(struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload)

    def packet(self):
        header = self.exact(4)
        return self.exact(int.from_bytes(header[:3], "little"))

    def exact(self, n):
        b = b""
        while len(b) < n:
            chunk = self.s.recv(n - len(b))
            assert chunk, "closed"
            b += chunk
        return b

    def drain(self):
        """Everything the server sends until it has been silent for 0.5 s."""
        self.s.settimeout(0.5)
        out = b""
        try:
            while True:
                chunk = self.s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except socket.timeout:
            pass
        self.s.settimeout(None)
        return out

    def command(self, payload):
        self.send(payload)
        return self.drain()

    def query(self, sql):
        return self.command(b"\x03" + sql.encode())


def frames(data):
    i = 0
    while i < len(data):
        n = int.from_bytes(data[i:i + 3], "little")
        yield data[i:i + 4 + n]
        i += 4 + n
    assert i == len(data), "recording ends inside a frame"


def execute(stmt_id, flags, params):
    body = b"\x17" + struct.pack("<IBI", stmt_id, flags, 1)
    if params:
        body += bytes((len(params) + 7) // 8) + b"\x01" + b"\x08\x00" * len(params)
        body += b"".join(struct.pack("<q", p) for p in params)
    return body


def prepare(c, sql):
    resp = c.command(b"\x16" + sql.encode())
    return resp, struct.unpack_from("<I", resp, 5)[0]


def setup(c):
    for sql in [
        "DROP TABLE IF EXISTS items",
        "CREATE TABLE items (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20), price DECIMAL(8,2),"
        " note TEXT DEFAULT 'none')",
        "INSERT INTO items (name, price, note) VALUES ('apple', 1.25, NULL), ('pear', NULL, 'ripe'),"
        " ('fig', 3.00, NULL), (NULL, 0.50, 'unnamed')",
        "DROP PROCEDURE IF EXISTS two_results",
        "CREATE PROCEDURE two_results() BEGIN SELECT id, name FROM items ORDER BY id LIMIT 2;"
        " SELECT COUNT(*) AS n FROM items; END",
        "DROP FUNCTION IF EXISTS fail_at",
        "CREATE FUNCTION fail_at(x INT, bad INT) RETURNS INT DETERMINISTIC BEGIN IF x = bad THEN"
        " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'row refused'; END IF; RETURN x; END",
    ]:
        r = c.query(sql)
        assert r[4] == 0, (sql, r)


CALL_SETUP = [
    "DROP TABLE IF EXISTS call_items",
    "CREATE TABLE call_items (id INT PRIMARY KEY, name VARCHAR(20))",
    "INSERT INTO call_items VALUES (1, 'one'), (2, 'two'), (3, 'three')",
    "DROP PROCEDURE IF EXISTS cursor_loop",
    # while the procedure's cursor is open, the result sets' EOF packets carry
    # SERVER_STATUS_CURSOR_EXISTS, yet their rows follow
    "CREATE PROCEDURE cursor_loop() BEGIN DECLARE done INT DEFAULT 0; DECLARE v INT;"
    " DECLARE cur CURSOR FOR SELECT id FROM call_items ORDER BY id;"
    " DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1; OPEN cur;"
    " l: LOOP FETCH cur INTO v; IF done THEN LEAVE l; END IF; SELECT v, v * 2 AS doubled; END LOOP;"
    " CLOSE cur; END",
    "DROP PROCEDURE IF EXISTS cursor_then_error",
    "CREATE PROCEDURE cursor_then_error() BEGIN DECLARE v INT;"
    " DECLARE cur CURSOR FOR SELECT id FROM call_items ORDER BY id; OPEN cur; FETCH cur INTO v;"
    " SELECT v; SELECT * FROM no_such_table; END",
    "DROP PROCEDURE IF EXISTS out_params",
    "CREATE PROCEDURE out_params(IN a INT, INOUT b INT, OUT c INT) BEGIN SELECT a AS a_in;"
    " SELECT id FROM call_items WHERE id < 0; SET b = b + a; SET c = a * 10; END",
    "DROP PROCEDURE IF EXISTS error_after",
    "CREATE PROCEDURE error_after() BEGIN SELECT 1 AS first; SELECT * FROM no_such_table; END",
    "DROP PROCEDURE IF EXISTS handler_result",
    "CREATE PROCEDURE handler_result() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SELECT 'handled' AS h;"
    " INSERT INTO call_items VALUES (1, 'duplicate'); SELECT 2 AS b; END",
]


def record_calls(host, port, outdir):
    for deprecate_eof in (True, False):
        caps = BASE_CAPS | (DEPRECATE_EOF if deprecate_eof else 0)
        c = Conn(host, port, caps)
        for sql in CALL_SETUP:
            r = c.query(sql)
            assert r[4] == 0, (sql, r)
        fixtures = []

        def add(name, how, data):
            fixtures.append((name, how, data))

        add("call-cursor-loop", 'COM_QUERY "CALL cursor_loop()": a result set per FETCH while the cursor is open',
            c.query("CALL cursor_loop()"))
        add("call-cursor-then-error", 'COM_QUERY "CALL cursor_then_error()": a result set while the'
            " procedure's cursor is open, then ERR 1146", c.query("CALL cursor_then_error()"))
        add("call-error-after", 'COM_QUERY "CALL error_after()": a result set, then ERR 1146',
            c.query("CALL error_after()"))
        add("call-handler", 'COM_QUERY "CALL handler_result()": the handler\'s result set, another, then OK',
            c.query("CALL handler_result()"))
        add("multi-ok-between", 'COM_QUERY "SELECT 1; DO 2; SELECT 3" (an OK between result sets)',
            c.query("SELECT 1; DO 2; SELECT 3"))
        _, loop = prepare(c, "CALL cursor_loop()")
        add("execute-call-cursor-flag", 'COM_STMT_EXECUTE of "CALL cursor_loop()" with flags CURSOR_TYPE_READ_ONLY'
            " (no cursor is opened for a CALL: the results come inline)", c.command(execute(loop, 1, [])))
        _, outs = prepare(c, "CALL out_params(?, ?, ?)")
        add("execute-call-out-params", 'COM_STMT_EXECUTE of "CALL out_params(?, ?, ?)" with (4, 5, 0): two result'
            " sets, the OUT parameters' result set (SERVER_PS_OUT_PARAMS), then OK",
            c.command(execute(outs, 0, [4, 5, 0])))
        c.s.close()
        write(outdir, c, deprecate_eof, fixtures)


def write(outdir, c, deprecate_eof, fixtures):
    suffix = "deprecate-eof" if deprecate_eof else "eof"
    for name, how, data in fixtures:
        with open(f"{outdir}/{name}.{suffix}.hex", "w") as f:
            f.write(f"# MariaDB {c.version}, recorded by record.py over TCP: {how}."
                    f" Client capabilities 0x{c.caps:08x}: CLIENT_DEPRECATE_EOF"
                    f" {'on' if deprecate_eof else 'off'}. Server to client bytes, one frame a line.\n")
            for fr in frames(data):
                f.write(fr.hex() + "\n")


def record(host, port, outdir):
    for deprecate_eof in (True, False):
        caps = BASE_CAPS | (DEPRECATE_EOF if deprecate_eof else 0)
        c = Conn(host, port, caps)
        setup(c)
        fixtures = []

        def add(name, how, data):
            fixtures.append((name, how, data))

        add("ok-insert", 'COM_QUERY "INSERT INTO items (name, price) VALUES (\'kiwi\', 2.10)"',
            c.query("INSERT INTO items (name, price) VALUES ('kiwi', 2.10)"))
        add("err-no-table", 'COM_QUERY "SELECT * FROM no_such_table"', c.query("SELECT * FROM no_such_table"))
        add("text-rows-nulls", 'COM_QUERY "SELECT name, price, note, id FROM items ORDER BY id"',
            c.query("SELECT name, price, note, id FROM items ORDER BY id"))
        add("text-zero-rows", 'COM_QUERY "SELECT id, name FROM items WHERE id < 0"',
            c.query("SELECT id, name FROM items WHERE id < 0"))
        add("multi-statement", 'COM_QUERY "SELECT 1; SELECT 2" (CLIENT_MULTI_STATEMENTS)', c.query("SELECT 1; SELECT 2"))
        add("call-two-results", 'COM_QUERY "CALL two_results()"', c.query("CALL two_results()"))
        add("error-mid-rows", 'COM_QUERY "SELECT fail_at(seq, 4) FROM seq_1_to_6": rows 1-3, then SIGNAL',
            c.query("SELECT fail_at(seq, 4) FROM seq_1_to_6"))
        add("local-infile", 'COM_QUERY "LOAD DATA LOCAL INFILE \'/tmp/rs-items.csv\' INTO TABLE items (name)",'
            " the 0xFB request, then (after the client sent 2 rows and an empty packet) the final OK",
            c.query("LOAD DATA LOCAL INFILE '/tmp/rs-items.csv' INTO TABLE items (name)")
            + (c.send(b"plum\nlime\n", 2), c.send(b"", 3), c.drain())[2])
        add("field-list", 'COM_FIELD_LIST "items"', c.command(b"\x04items\0"))
        add("statistics", "COM_STATISTICS", c.command(b"\x09"))
        add("ping", "COM_PING", c.command(b"\x0e"))
        resp, both = prepare(c, "SELECT id, name FROM items WHERE id > ? AND id < ?")
        add("prepare-params-columns", 'COM_STMT_PREPARE "SELECT id, name FROM items WHERE id > ? AND id < ?"', resp)
        resp, only_params = prepare(c, "UPDATE items SET price = ? WHERE id = ?")
        add("prepare-params-only", 'COM_STMT_PREPARE "UPDATE items SET price = ? WHERE id = ?"', resp)
        resp, neither = prepare(c, "DO 1")
        add("prepare-neither", 'COM_STMT_PREPARE "DO 1"', resp)
        add("prepare-err", 'COM_STMT_PREPARE "SELECT * FROM no_such_table WHERE id = ?"',
            prepare(c, "SELECT * FROM no_such_table WHERE id = ?")[0])
        add("execute-binary-rows", 'COM_STMT_EXECUTE of "SELECT id, name FROM items WHERE id > ? AND id < ?"'
            " with (0, 4), no cursor", c.command(execute(both, 0, [0, 4])))
        add("execute-update-ok", 'COM_STMT_EXECUTE of "UPDATE items SET price = ? WHERE id = ?" with (7, 2)',
            c.command(execute(only_params, 0, [7, 2])))
        add("execute-cursor-open", 'COM_STMT_EXECUTE of "SELECT id, name FROM items WHERE id > ? AND id < ?"'
            " with (0, 100), flags CURSOR_TYPE_READ_ONLY", c.command(execute(both, 1, [0, 100])))
        add("fetch-two-rows", "COM_STMT_FETCH 2 rows of the open cursor (more remain)",
            c.command(b"\x1c" + struct.pack("<II", both, 2)))
        add("fetch-last-rows", "COM_STMT_FETCH 100 rows of the open cursor (the rest: SERVER_STATUS_LAST_ROW_SENT)",
            c.command(b"\x1c" + struct.pack("<II", both, 100)))
        add("fetch-err", "COM_STMT_FETCH of an unknown statement id", c.command(b"\x1c" + struct.pack("<II", 999, 1)))
        add("execute-cursor-open-again", "COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY again (params 0, 100)",
            c.command(execute(both, 1, [0, 100])))
        add("query-while-cursor-open", 'COM_QUERY "SELECT 7 AS n" while the cursor above is open',
            c.query("SELECT 7 AS n"))
        add("set-option-multi-off", "COM_SET_OPTION MYSQL_OPTION_MULTI_STATEMENTS_OFF",
            c.command(b"\x1b\x01\x00"))
        add("init-db-err", 'COM_INIT_DB "no_such_db"', c.command(b"\x02no_such_db"))
        c.s.close()
        write(outdir, c, deprecate_eof, fixtures)


if __name__ == "__main__":
    with open("/tmp/rs-items.csv", "w") as f:
        f.write("plum\nlime\n")
    if sys.argv[4:] == ["calls"]:
        record_calls(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    else:
        record(sys.argv[1], int(sys.argv[2]), sys.argv[3])
