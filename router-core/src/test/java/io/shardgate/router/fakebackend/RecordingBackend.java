package io.shardgate.router.fakebackend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.LoggedInConnections;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.IdleConnections;
import io.shardgate.router.pool.PoolPartition;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.session.SessionVariables;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A recording fake backend, in the spirit of Vitess's logging vcursor: the connections a lease
 * borrows through the real pool of a real {@link Hostgroup} are {@link EmbeddedChannel}s carrying
 * the real relay ({@code BackendRelayHandler}), and the server's side of each is this class, which
 * records every command packet the router sends ({@link #sent()}, as {@code "COM_QUERY SET ..."},
 * {@code "COM_INIT_DB shop"}, {@code "COM_RESET_CONNECTION"}, {@code "COM_STMT_CLOSE 7"}) and
 * answers each, when the test calls {@link #serve}, with its scripted {@link Reply} (an OK when
 * none is scripted). Everything runs on the calling thread with time frozen (timers fire only when
 * a test {@link #advanceTime advances} it), so a test asserts exact sequences with no server, no
 * threads and no timing. Every buffer comes from a tracking allocator; {@link #close} fails when
 * one is left unreleased. Commands are single frames (under 16 MiB); one not sent as sequence 0 shows
 * its sequence id.
 */
public final class RecordingBackend implements AutoCloseable {
    /** Result-format capabilities of the client session the connections are for. */
    private static final int CLIENT_FLAGS = CapabilityFlags.CLIENT_MULTI_STATEMENTS
            | CapabilityFlags.CLIENT_MULTI_RESULTS
            | CapabilityFlags.CLIENT_PS_MULTI_RESULTS;

    /** Commands the server answers nothing to. */
    private static final Set<Command> UNANSWERED =
            EnumSet.of(Command.COM_STMT_CLOSE, Command.COM_STMT_SEND_LONG_DATA, Command.COM_QUIT);

    private final TrackingAllocator alloc;
    private final Hostgroup hostgroup;
    private final EmbeddedChannel client;
    /** False for a second hostgroup's server sharing another one's client channel and allocator. */
    private final boolean ownsClient;

    private final ConnectionKind kind;
    private final Capabilities capabilities;
    private final int queryTimeoutMillis;
    private final boolean deprecateEof;
    private final List<Connection> connections = new ArrayList<>();
    private final List<String> sent = new ArrayList<>();
    private final ArrayDeque<Pending> unanswered = new ArrayDeque<>();
    private final Map<String, ArrayDeque<Reply>> script = new HashMap<>();

    /** A command received and not answered yet. */
    private record Pending(Connection connection, String command) {}

    /** One connection of the fake server: its channel, as the router holds it, and what it received. */
    public final class Connection {
        private final EmbeddedChannel channel;
        private final PooledConnection pooled;
        private final List<String> received = new ArrayList<>();
        /** Bytes of a frame that has not fully arrived. */
        private byte[] partial = new byte[0];

        private Connection(EmbeddedChannel channel, PooledConnection pooled) {
            this.channel = channel;
            this.pooled = pooled;
        }

        /** The connection as the pool lends it. */
        public PooledConnection pooled() {
            return pooled;
        }

        /** The commands this connection received, in order. */
        public List<String> received() {
            collect();
            return List.copyOf(received);
        }

        /** True while neither side closed the connection. */
        public boolean open() {
            return channel.isActive();
        }

        /** The server closes the connection (a crash, a KILL, wait_timeout). */
        public void lose() {
            channel.close();
        }

        private void collect() {
            for (Object m = channel.readOutbound(); m != null; m = channel.readOutbound()) {
                ByteBuf b = (ByteBuf) m;
                byte[] bytes = ByteBufUtil.getBytes(b);
                b.release();
                byte[] all = Arrays.copyOf(partial, partial.length + bytes.length);
                System.arraycopy(bytes, 0, all, partial.length, bytes.length);
                partial = all;
            }
            int at = 0;
            while (partial.length - at >= 4) {
                int length = (partial[at] & 0xFF) | (partial[at + 1] & 0xFF) << 8 | (partial[at + 2] & 0xFF) << 16;
                if (partial.length - at - 4 < length) {
                    break;
                }
                int sequenceId = partial[at + 3] & 0xFF;
                byte[] payload = Arrays.copyOfRange(partial, at + 4, at + 4 + length);
                at += 4 + length;
                // a server takes a command only as sequence 0: show any other, so no test passes over it
                String command = describe(payload) + (sequenceId == 0 ? "" : " [sequence " + sequenceId + "]");
                received.add(command);
                sent.add(command);
                if (!UNANSWERED.contains(Command.of(payload[0] & 0xFF))) {
                    unanswered.add(new Pending(this, command));
                }
            }
            partial = Arrays.copyOfRange(partial, at, partial.length);
        }

        private void answer(Reply reply) {
            ByteBuf response = alloc.heapBuffer();
            try {
                reply.write(response, capabilities);
            } catch (RuntimeException e) {
                response.release();
                throw e;
            }
            int keep = reply.lostAfter() < 0 ? response.readableBytes() : reply.lostAfter();
            response.writerIndex(response.readerIndex() + Math.min(keep, response.readableBytes()));
            if (response.isReadable()) {
                channel.writeInbound(response);
            } else {
                response.release();
            }
            if (reply.lostAfter() >= 0) {
                channel.close();
            }
        }
    }

    /** A hostgroup with the default pool (multiplexing on), no query timeout, classic EOF packets. */
    public RecordingBackend() {
        this("{}", 0, false);
    }

    /**
     * @param pool the hostgroup's {@code pool} settings as YAML, e.g. {@code "{multiplexing: false}"}
     * @param queryTimeoutMillis {@code server.query_timeout_millis} of the connections (0: none)
     * @param deprecateEof the client negotiated CLIENT_DEPRECATE_EOF, and so the connections did
     */
    public RecordingBackend(String pool, int queryTimeoutMillis, boolean deprecateEof) {
        this(
                new Hostgroup(
                        RouterConfig.parse("""
                                users:
                                  - {name: app, password: secret}
                                hostgroups:
                                  - id: 10
                                    writer: "fake:3306"
                                    user: sg
                                    pool: %s
                                """.formatted(pool)).hostgroups().get(0),
                        // never used: every connection a lease borrows here is one added by connection()
                        new BackendConnector(NioSocketChannel.class, 1000)),
                queryTimeoutMillis,
                deprecateEof);
    }

    /**
     * The server of {@code hostgroup}, one a router's {@code Hostgroups} opened (its writer's
     * address is never dialled: a lease borrows only the connections added by {@link #connection}).
     */
    public RecordingBackend(Hostgroup hostgroup, int queryTimeoutMillis, boolean deprecateEof) {
        this(hostgroup, newClient(new TrackingAllocator()), queryTimeoutMillis, deprecateEof, true);
    }

    /**
     * The server of another hostgroup for the same client session: its connections relay to
     * {@code first}'s client channel (one session, one event loop) and share its allocator, so
     * {@code first}'s {@link #close} checks every buffer. Close this one before {@code first}.
     */
    public RecordingBackend(RecordingBackend first, Hostgroup hostgroup) {
        this(hostgroup, first.client, first.queryTimeoutMillis, first.deprecateEof, false);
    }

    private RecordingBackend(
            Hostgroup hostgroup,
            EmbeddedChannel client,
            int queryTimeoutMillis,
            boolean deprecateEof,
            boolean ownsClient) {
        this.queryTimeoutMillis = queryTimeoutMillis;
        this.deprecateEof = deprecateEof;
        this.hostgroup = hostgroup;
        this.client = client;
        this.alloc = (TrackingAllocator) client.config().getAllocator();
        this.ownsClient = ownsClient;
        int flags = CLIENT_FLAGS | (deprecateEof ? CapabilityFlags.CLIENT_DEPRECATE_EOF : 0);
        this.kind = new ConnectionKind(flags, 0, Collations.UTF8MB4_GENERAL_CI, null);
        this.capabilities = new Capabilities(BackendConnector.BASE_CAPABILITIES | flags);
    }

    private static EmbeddedChannel newClient(TrackingAllocator alloc) {
        EmbeddedChannel client = new EmbeddedChannel();
        client.freezeTime();
        client.config().setAllocator(alloc);
        return client;
    }

    public Hostgroup hostgroup() {
        return hostgroup;
    }

    /** The client's channel: relayed responses are written to it; its loop is the session's. */
    public EmbeddedChannel client() {
        return client;
    }

    /** The session's event loop, on which a lease borrows. */
    public EventLoop loop() {
        return client.eventLoop();
    }

    /** The kind of connection the session asks for (before its schema is set). */
    public ConnectionKind kind() {
        return kind;
    }

    /** Adds an idle connection to the pool whose server session holds {@code state}. */
    public Connection connection(SessionVariables state) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.config().setAllocator(alloc);
        int id = connections.size() + 1;
        PooledConnection pooled = IdleConnections.add(
                partition(),
                LoggedInConnections.on(channel, id, capabilities, Reply.AUTOCOMMIT, "fake:3306#" + id),
                deprecateEof,
                queryTimeoutMillis,
                kind.withSchema(state.schema()),
                state);
        Connection c = new Connection(channel, pooled);
        connections.add(c);
        return c;
    }

    /** The pool partition of the session's loop. */
    public PoolPartition partition() {
        return hostgroup.writer().pool().partition(loop());
    }

    /** Idle connections in the pool. */
    public int idle() {
        return IdleConnections.count(partition());
    }

    /** Scripts the answer to the next {@code command} received (exactly as {@link #sent()} shows it). */
    public RecordingBackend answer(String command, Reply reply) {
        script.computeIfAbsent(command, k -> new ArrayDeque<>()).add(reply);
        return this;
    }

    /** Every command received so far, over all connections, in order. */
    public List<String> sent() {
        connections.forEach(Connection::collect);
        return List.copyOf(sent);
    }

    /** Forgets the commands received so far (those not answered yet stay to be answered). */
    public void clearSent() {
        sent();
        sent.clear();
    }

    /** Answers the oldest command not answered yet; false when there is none. */
    public boolean serveOne() {
        connections.forEach(Connection::collect);
        Pending next = unanswered.poll();
        if (next == null) {
            return false;
        }
        ArrayDeque<Reply> replies = script.get(next.command());
        Reply reply = replies == null || replies.isEmpty() ? Reply.ok() : replies.poll();
        next.connection().answer(reply);
        return true;
    }

    /** Answers every command, including those the answers make the router send; returns how many. */
    public int serve() {
        int n = 0;
        while (serveOne()) {
            n++;
        }
        return n;
    }

    /**
     * Sends {@code sql} on {@code connection} as the client's COM_QUERY, as an executor does: the
     * relay expects a result set, then the packet goes out with sequence id 0.
     */
    public void clientQuery(PooledConnection connection, String sql) {
        clientCommand(
                connection,
                Response.RESULT_SET,
                out -> out.writeByte(Command.COM_QUERY.code()).writeCharSequence(sql, StandardCharsets.UTF_8));
    }

    /**
     * Sends the client's command whose payload {@code payload} writes on {@code connection}, as an
     * executor does: the relay expects {@code response} (null: the command has none), then the
     * packet goes out with sequence id 0.
     */
    public void clientCommand(PooledConnection connection, Response response, Consumer<ByteBuf> payload) {
        ByteBuf buf = alloc.heapBuffer();
        payload.accept(buf);
        if (response != null) {
            connection.relay().expect(response);
        }
        connection
                .channel()
                .writeAndFlush(new Packet(0, buf), connection.channel().voidPromise());
    }

    /**
     * Has the router's side of every connection, and the client's channel when this server owns it,
     * allocate from {@code allocator} instead of the tracking allocator ({@code null}: the tracking
     * one again); the fake's own answers still come from the tracking one. For the allocation guard,
     * which counts what the router's allocator costs in production, not what tracking costs.
     */
    public void allocateFrom(ByteBufAllocator allocator) {
        ByteBufAllocator chosen = allocator == null ? alloc : allocator;
        if (ownsClient) {
            client.config().setAllocator(chosen);
        }
        for (Connection c : connections) {
            c.channel.config().setAllocator(chosen);
        }
    }

    /** The bytes relayed to the client so far (and releases them). */
    public byte[] relayed() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (Object m = client.readOutbound(); m != null; m = client.readOutbound()) {
            ByteBuf b = (ByteBuf) m;
            all.writeBytes(ByteBufUtil.getBytes(b));
            b.release();
        }
        return all.toByteArray();
    }

    /** Lets {@code millis} pass on every loop and runs the timers that came due. */
    public void advanceTime(long millis) {
        client.advanceTimeBy(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        client.runPendingTasks();
        for (Connection c : connections) {
            c.channel.advanceTimeBy(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
            c.channel.runPendingTasks();
        }
    }

    /** The command as {@link #sent()} shows it. */
    static String describe(byte[] payload) {
        Command command = Command.of(payload[0] & 0xFF);
        String name = command == null ? "0x" + HexFormat.of().toHexDigits(payload[0]) : command.name();
        byte[] rest = Arrays.copyOfRange(payload, 1, payload.length);
        if (command == null) {
            return rest.length == 0 ? name : name + " " + HexFormat.of().formatHex(rest);
        }
        return switch (command) {
            case COM_QUERY, COM_INIT_DB, COM_STMT_PREPARE -> name + " " + new String(rest, StandardCharsets.UTF_8);
            case COM_STMT_EXECUTE, COM_STMT_CLOSE, COM_STMT_RESET, COM_STMT_FETCH, COM_STMT_SEND_LONG_DATA ->
                name + " "
                        + ByteBuffer.wrap(rest, 0, 4)
                                .order(ByteOrder.LITTLE_ENDIAN)
                                .getInt();
            default -> rest.length == 0 ? name : name + " " + HexFormat.of().formatHex(rest);
        };
    }

    /**
     * Closes the pool and every channel, releasing what they still hold; fails when a buffer that
     * the router, the relay or this fake allocated was not released (a server sharing another's
     * client channel leaves the channel and the check to that one).
     */
    @Override
    public void close() {
        hostgroup.close();
        client.runPendingTasks(); // the pool closes its partition on the session's loop
        for (Connection c : connections) {
            c.channel.finishAndReleaseAll();
        }
        if (!ownsClient) {
            return;
        }
        client.finishAndReleaseAll();
        long unreleased = alloc.unreleased();
        if (unreleased > 0) {
            throw new AssertionError(unreleased + " buffer(s) not released");
        }
    }
}
