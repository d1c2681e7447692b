package io.shardgate.it.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder between the router and a real MariaDB that, when armed, closes the connection on
 * which the router sends a chosen command (COM_QUERY, COM_STMT_PREPARE) containing a chosen text — before the server sees it — and
 * then disarms: a backend connection lost at exactly that command, the moment a kill from another
 * session can only hit by chance. Blocking sockets and two threads per connection: test traffic
 * only.
 */
final class QueryTrapProxy implements AutoCloseable {
    /** COM_QUERY's command byte. */
    static final int COM_QUERY = 0x03;
    /** COM_STMT_PREPARE's command byte. */
    static final int COM_STMT_PREPARE = 0x16;

    private final ServerSocket listener;
    private final String backendHost;
    private final int backendPort;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicInteger sprung = new AtomicInteger();
    private volatile String trap = "";
    private volatile int trapCommand = COM_QUERY;
    private volatile boolean hold;

    QueryTrapProxy(String backendHost, int backendPort) throws IOException {
        this.backendHost = backendHost;
        this.backendPort = backendPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "query-trap-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** The address the router's hostgroup names instead of the server's. */
    String address() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** The next command {@code command} (of any connection) containing {@code text} closes its connection unsent. */
    void arm(int command, String text) {
        arm(command, text, false);
    }

    /**
     * As {@link #arm(int, String)}; {@code hold}: the connection stays open instead, the command and
     * all that follows on it never reaching the server (a server that does not answer).
     */
    void arm(int command, String text, boolean hold) {
        trap = text;
        trapCommand = command;
        this.hold = hold;
        armed.set(true);
    }

    /** How many connections the trap closed. */
    int sprung() {
        return sprung.get();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket router = listener.accept();
                Socket server = new Socket(backendHost, backendPort);
                start("query-trap-down", () -> pump(server, router, false));
                start("query-trap-up", () -> pump(router, server, true));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void start(String name, Runnable pump) {
        Thread t = new Thread(pump, name);
        t.setDaemon(true);
        t.start();
    }

    /** Copies {@code from} to {@code to}; the router's side frame by frame, so a command can be trapped whole. */
    private void pump(Socket from, Socket to, boolean fromRouter) {
        try (from;
                to) {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            byte[] pending = new byte[0];
            byte[] chunk = new byte[64 * 1024];
            boolean holding = false;
            int n;
            while ((n = in.read(chunk)) > 0) {
                if (holding) {
                    continue; // swallowed until the router closes the connection
                }
                if (!fromRouter) {
                    out.write(chunk, 0, n);
                    continue;
                }
                pending = Arrays.copyOf(pending, pending.length + n);
                System.arraycopy(chunk, 0, pending, pending.length - n, n);
                int at = 0;
                while (pending.length - at >= 4) {
                    int length = (pending[at] & 0xFF) | (pending[at + 1] & 0xFF) << 8 | (pending[at + 2] & 0xFF) << 16;
                    if (pending.length - at < 4 + length) {
                        break;
                    }
                    if (trapped(pending, at, length)) {
                        sprung.incrementAndGet();
                        if (!hold) {
                            return; // closes both sockets: the server never reads the command
                        }
                        holding = true;
                        break;
                    }
                    out.write(pending, at, 4 + length);
                    at += 4 + length;
                }
                pending = Arrays.copyOfRange(pending, at, pending.length);
            }
        } catch (IOException e) {
            // the other side closed: so does this one (try-with-resources)
        }
    }

    /** A command (sequence id 0, so never a login packet) of the trapped kind containing the trap text. */
    private boolean trapped(byte[] frame, int at, int length) {
        if (length < 1 || frame[at + 3] != 0 || frame[at + 4] != trapCommand || !armed.get()) {
            return false;
        }
        String sql = new String(frame, at + 5, length - 1, StandardCharsets.UTF_8);
        return sql.contains(trap) && armed.compareAndSet(true, false);
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
