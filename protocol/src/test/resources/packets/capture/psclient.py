"""Minimal MySQL protocol client (raw socket) used to drive mariadbd through recorder.py."""
import hashlib, socket, struct, sys

def xor(a, b): return bytes(x ^ y for x, y in zip(a, b))

class Conn:
    def __init__(self, port, user, password, db, caps):
        self.s = socket.create_connection(('127.0.0.1', port))
        self.buf = b''
        seq, greet = self.read()
        sv_end = greet.index(b'\0', 1)
        p = sv_end + 1 + 4
        part1 = greet[p:p+8]; p += 9
        p += 2 + 1 + 2 + 2 + 1 + 10
        part2 = greet[p:p+12]
        seed = part1 + part2
        s1 = hashlib.sha1(password.encode()).digest()
        auth = xor(s1, hashlib.sha1(seed + hashlib.sha1(s1).digest()).digest())
        body = struct.pack('<IIB', caps, 16777216, 45) + b'\0' * 23 + user.encode() + b'\0'
        body += bytes([len(auth)]) + auth + db.encode() + b'\0' + b'mysql_native_password\0'
        self.write(1, body)
        seq, resp = self.read()
        assert resp[0] == 0, resp

    def read(self):
        while len(self.buf) < 4 or len(self.buf) < 4 + int.from_bytes(self.buf[:3], 'little'):
            d = self.s.recv(65536)
            if not d: raise EOFError
            self.buf += d
        n = int.from_bytes(self.buf[:3], 'little')
        seq, payload = self.buf[3], self.buf[4:4+n]
        self.buf = self.buf[4+n:]
        return seq, payload

    def write(self, seq, payload):
        self.s.sendall(len(payload).to_bytes(3, 'little') + bytes([seq]) + payload)

    def command(self, payload):
        self.write(0, payload)

    def read_until_end(self, eof_count):
        """Reads packets until eof_count EOF/OK-EOF terminators (or an ERR/OK first packet)."""
        out = []
        seen = 0
        while True:
            seq, p = self.read()
            out.append(p)
            if len(out) == 1 and p[0] in (0x00, 0xff):
                return out
            if p[0] == 0xfe and len(p) < 0xffffff:
                seen += 1
                if seen == eof_count:
                    return out

CLIENT_PROTOCOL_41 = 1 << 9; SECURE = 1 << 15; PLUGIN_AUTH = 1 << 19; CONNECT_WITH_DB = 8
TRANSACTIONS = 1 << 13; MULTI_RESULTS = 1 << 17; PS_MULTI = 1 << 18; LONG_PW = 1; DEPRECATE_EOF = 1 << 24
BASE = LONG_PW | CLIENT_PROTOCOL_41 | SECURE | PLUGIN_AUTH | CONNECT_WITH_DB | TRANSACTIONS | MULTI_RESULTS | PS_MULTI

if __name__ == '__main__':
    port = int(sys.argv[1])
    deprecate = len(sys.argv) > 2 and sys.argv[2] == 'deprecate_eof'
    if len(sys.argv) > 2 and sys.argv[2] == 'text_types':
        c = Conn(port, 'sg', 'secret', 'sgtest', BASE)
        c.command(b'\x03SELECT * FROM types ORDER BY id'); c.read_until_end(2)
        c.command(b'\x01')
        sys.exit(0)
    c = Conn(port, 'sg', 'secret', 'sgtest', BASE | (DEPRECATE_EOF if deprecate else 0))
    def q(sql, eofs=1 if deprecate else 2):
        c.command(b'\x03' + sql.encode()); return c.read_until_end(eofs)
    if not deprecate:
        q("DROP TABLE IF EXISTS types")
        q("""CREATE TABLE types (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT,
             i INT, bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec1 DECIMAL(20,6), dt DATE, dtm DATETIME(6),
             ts TIMESTAMP(3) NULL, tm TIME(6), y YEAR, b BIT(10), c CHAR(3), vc VARCHAR(20), vb VARBINARY(8), bl BLOB,
             tx TEXT, e ENUM('red','green'), st SET('a','b','c'), j JSON, g GEOMETRY)""")
        q("""INSERT INTO types VALUES
          (1, -128, 255, -32768, -8388608, -2147483648, -9223372036854775808, 18446744073709551615, 1.5, -2.25,
           '-12345678901234.123456', '2024-02-29', '2024-02-29 13:14:15.123456', '2038-01-19 03:14:07.999',
           '-838:59:59.000000', 2155, b'1010101010', 'ab', 'héllo wörld', X'00FF0001', X'DEADBEEF00', 'text', 'green', 'a,c',
           '{"k": [1, 2]}', ST_GeomFromText('POINT(1 2)')),
          (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          (3, 127, 0, 32767, 8388607, 2147483647, 9223372036854775807, 0, 0, 1e308, '0.000001', '1000-01-01',
           '2000-01-01 00:00:00', '1970-01-01 00:00:01', '30:00:00.5', 1901, b'0', '', '', X'', X'', '', 'red', '',
           '[]', ST_GeomFromText('POINT(0 0)')),
          (4, 0, 1, 0, 0, 0, 0, 1, -0.5, 0, '1.5', '2000-01-01', '2000-01-01 10:20:30', '2000-01-01 10:20:30',
           '-00:00:01', 2000, b'1', 'x', 'y', X'01', X'02', 'z', 'red', 'b', 'null', ST_GeomFromText('POINT(3 4)'))""")
    q("SELECT 1 AS one, 'two' AS two")
    q("SELECT * FROM nosuchtable")
    if not deprecate:
        c.command(b'\x02sgtest'); c.read()
        c.command(b'\x0e'); c.read()
    # prepared statement with one parameter, all types
    c.command(b'\x16SELECT * FROM types WHERE id >= ? ORDER BY id')
    seq, ok = c.read()
    stmt_id, ncols, nparams = struct.unpack('<IHH', ok[1:9])
    # param defs + EOF, column defs + EOF (or none with DEPRECATE_EOF)
    for _ in range(nparams + ncols + (0 if deprecate else 2)):
        c.read()
    execute = b'\x17' + struct.pack('<IBI', stmt_id, 0, 1) + b'\x00' + b'\x01' + bytes([8, 0]) + struct.pack('<q', 1)
    c.command(execute)
    c.read_until_end(1 if deprecate else 2)
    c.command(b'\x19' + struct.pack('<I', stmt_id))
    c.command(b'\x01')
