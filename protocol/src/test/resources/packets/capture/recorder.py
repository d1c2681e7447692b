"""TCP recorder between a MySQL client and mariadbd: logs every frame (direction, seq, payload hex)."""
import socket, sys, threading, json

listen_port, target_port, log_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
log = open(log_path, 'a')

def pump(src, dst, direction, conn_id):
    buf = b''
    while True:
        try:
            data = src.recv(65536)
        except OSError:
            data = b''
        if not data:
            try: dst.shutdown(socket.SHUT_WR)
            except OSError: pass
            return
        dst.sendall(data)
        buf += data
        while len(buf) >= 4:
            n = int.from_bytes(buf[:3], 'little')
            if len(buf) < 4 + n: break
            with lock:
                log.write(json.dumps({'conn': conn_id, 'dir': direction, 'seq': buf[3], 'hex': buf[4:4+n].hex()}) + '\n')
                log.flush()
            buf = buf[4+n:]

srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', listen_port)); srv.listen(5)
cid = 0
while True:
    c, _ = srv.accept(); cid += 1
    s = socket.create_connection(('127.0.0.1', target_port))
    threading.Thread(target=pump, args=(c, s, 'c2s', cid), daemon=True).start()
    threading.Thread(target=pump, args=(s, c, 's2c', cid), daemon=True).start()
