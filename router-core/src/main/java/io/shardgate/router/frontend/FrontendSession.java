package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.frame.PacketTooLargeException;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComChangeUser;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.RelayTarget;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client connection in the command phase.
 *
 * <p>Design note. Each command borrows a backend connection through the session's
 * {@link BackendLease} (multiplexing), which first brings that server session to the client's
 * state ({@link SessionVariables}: schema and replayable SET assignments); the command is then
 * forwarded and the backend's response relayed back as raw bytes ({@code BackendRelayHandler}).
 * When the response ends the lease returns the connection unless something pins the session
 * ({@link PinReason}). This class decides per command what response to expect, tracks the
 * session effects of statements ({@link StatementScanner}), answers the commands the router owns
 * (COM_PING, COM_QUIT, COM_CHANGE_USER, unknown ones), and keeps order: commands that arrive
 * while one is outstanding wait in a queue and the client's reads pause, so a pipelining client
 * cannot make the router buffer without bound.
 *
 * <p>Threading: the client channel and every backend connection it borrows share one event
 * loop; everything here runs on it. Ownership: a {@link Packet} read from the client is either
 * written to a backend (which releases it) or released here.
 */
final class FrontendSession extends ChannelInboundHandlerAdapter implements RelayTarget {
    private static final Logger log = LoggerFactory.getLogger(FrontendSession.class);

    private final FrontendServices services;
    private final Capabilities capabilities;
    private final byte[] seed;
    private final int connectionId;
    private final int loginSequenceId;
    private final ArrayDeque<Packet> waiting = new ArrayDeque<>();
    private final BackendLease lease;
    private ChannelHandlerContext ctx;
    private UserConfig user;
    /** The server session state this client asked for. */
    private SessionVariables desired;
    /** A command is between dispatch and the end of its response (or waits for a connection). */
    private boolean busy;
    /** Effects of the statement in flight, applied when it succeeds. */
    private StatementEffects inFlightEffects = StatementEffects.NONE;

    private boolean inFlightInsert;
    /** A LOCAL INFILE upload is running: client packets are file data until an empty one. */
    private boolean uploading;

    private ChangeUserExchange changeUser;
    private final PreparedStatements statements = new PreparedStatements();
    /** SQL of the COM_STMT_PREPARE in flight, registered when its COM_STMT_PREPARE_OK passes. */
    private String pendingPrepareSql;

    private boolean closed;

    FrontendSession(
            FrontendServices services,
            UserConfig user,
            Capabilities capabilities,
            int characterSet,
            String schema,
            byte[] seed,
            int connectionId,
            int loginSequenceId,
            io.netty.channel.EventLoop loop) {
        this.services = services;
        this.user = user;
        this.capabilities = capabilities;
        this.seed = seed;
        this.connectionId = connectionId;
        this.loginSequenceId = loginSequenceId;
        this.desired = SessionVariables.initial(schema);
        ConnectionKind kind = new ConnectionKind(
                capabilities.flags() & BackendConnector.RESULT_FORMAT,
                capabilities.mariaDbFlags(),
                characterSet,
                schema);
        this.lease = new BackendLease(
                services.pool().partition(loop),
                kind,
                this,
                services.hostgroup().pool().multiplexing());
    }

    /** Finishes the login: the schema the client asked for must exist (MySQL checks at login). */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        busy = true;
        lease.acquire(desired, (connection, error) -> {
            busy = false;
            if (error != null) {
                closeWith(frame(loginSequenceId, error::write));
                return;
            }
            int status = lease.current().relay().statusFlags();
            lease.releaseIfFree();
            reply(loginSequenceId, OkPacket.of(0, 0, status, 0));
            ctx.channel().config().setAutoRead(true);
            drain();
        });
    }

    @Override
    public Channel client() {
        return ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        if (closed) {
            packet.release();
        } else if (uploading) {
            // LOCAL INFILE data keeps the client's sequence ids; an empty packet ends the file
            uploading = packet.payload().isReadable();
            PooledConnection c = lease.current();
            c.channel().writeAndFlush(packet, c.channel().voidPromise());
        } else if (changeUser != null && changeUser.expectsClientPacket()) {
            changeUser.onClientPacket(packet);
        } else if (busy || changeUser != null || !waiting.isEmpty()) {
            waiting.add(packet);
            ctx.channel().config().setAutoRead(false);
        } else {
            dispatch(packet);
        }
    }

    /** Routes one command; takes ownership of {@code packet}. */
    private void dispatch(Packet packet) {
        ByteBuf payload = packet.payload();
        Command command = payload.isReadable() ? Command.of(payload.getUnsignedByte(payload.readerIndex())) : null;
        if (command == null) {
            packet.release();
            reply(1, ErrPacket.of(ErrorCode.ER_UNKNOWN_COM_ERROR));
            return;
        }
        switch (command) {
            case COM_QUERY -> {
                String sql = payload.toString(
                        payload.readerIndex() + 1, payload.readableBytes() - 1, StandardCharsets.UTF_8);
                StatementEffects effects = StatementScanner.scan(sql);
                run(packet, Response.RESULT_SET, effects, isInsert(sql));
            }
            case COM_INIT_DB -> {
                String schema = payload.toString(
                        payload.readerIndex() + 1, payload.readableBytes() - 1, StandardCharsets.UTF_8);
                run(packet, Response.SINGLE, new StatementEffects(java.util.Map.of(), schema, Set.of(), false), false);
            }
            case COM_STMT_PREPARE -> {
                pendingPrepareSql = payload.toString(
                        payload.readerIndex() + 1, payload.readableBytes() - 1, StandardCharsets.UTF_8);
                run(packet, Response.PREPARE, StatementEffects.NONE, false);
            }
            case COM_STMT_EXECUTE, COM_STMT_FETCH, COM_STMT_RESET, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE ->
                runStatement(packet, command);
            case COM_FIELD_LIST -> run(packet, Response.FIELD_LIST, StatementEffects.NONE, false);
            case COM_STATISTICS -> run(packet, Response.STATISTICS, StatementEffects.NONE, false);
            case COM_PROCESS_INFO -> run(packet, Response.RESULT_SET, StatementEffects.NONE, false);
            case COM_DEBUG, COM_REFRESH -> run(packet, Response.SINGLE, StatementEffects.NONE, false);
            case COM_SET_OPTION -> {
                // switches multi-statements on that server session only
                lease.pin(EnumSet.of(PinReason.UNTRACKED_SET));
                run(packet, Response.SINGLE, StatementEffects.NONE, false);
            }
            case COM_RESET_CONNECTION -> resetConnection(packet);
            case COM_PING -> {
                packet.release();
                reply(1, OkPacket.of(0, 0, lease.statusFlags(), 0));
            }
            case COM_QUIT -> {
                packet.release();
                close();
            }
            case COM_CHANGE_USER -> startChangeUser(packet);
            default -> {
                packet.release();
                // replication, shutdown, kill by backend id...: a router cannot pass these on safely
                reply(1, Errors.notSupported(command.name() + " through the router"));
            }
        }
    }

    private static boolean isInsert(String sql) {
        int i = 0;
        while (i < sql.length() && (Character.isWhitespace(sql.charAt(i)) || sql.charAt(i) == '(')) {
            i++;
        }
        return sql.regionMatches(true, i, "INSERT", 0, 6) || sql.regionMatches(true, i, "REPLACE", 0, 7);
    }

    /** Borrows and aligns a connection, then forwards the command; {@code response} null: none comes. */
    private void run(Packet packet, Response response, StatementEffects effects, boolean insert) {
        busy = true;
        if (!effects.pins().isEmpty() && !effects.pins().contains(PinReason.UNTRACKED_SET)) {
            // pin before sending: e.g. GET_LOCK must stay with its connection even if it fails halfway
            lease.pin(effects.pins());
        }
        lease.acquire(desired, (connection, error) -> {
            if (proceed(packet, error)) {
                send(connection, packet, response, effects, insert);
            }
        });
    }

    /** False (the command answered or dropped) when the session closed or no connection came. */
    private boolean proceed(Packet packet, ErrPacket error) {
        if (closed) {
            packet.release();
            lease.close();
            return false;
        }
        if (error != null) {
            packet.release();
            fail(error);
            return false;
        }
        return true;
    }

    /** Answers the command in progress with {@code error} instead of a backend's response. */
    private void fail(ErrPacket error) {
        busy = false;
        pendingPrepareSql = null;
        reply(1, error);
        lease.releaseIfFree();
        drain();
    }

    private void send(
            PooledConnection connection, Packet packet, Response response, StatementEffects effects, boolean insert) {
        inFlightEffects = effects;
        inFlightInsert = insert;
        if (response != null) {
            connection.relay().expect(response);
        }
        connection.channel().writeAndFlush(packet, connection.channel().voidPromise());
        if (response == null) {
            finishCommand(lease.statusFlags(), false);
        }
    }

    /**
     * COM_STMT_EXECUTE, _FETCH, _RESET, _SEND_LONG_DATA, _CLOSE: the client names the router's
     * statement id; the statement is prepared on the borrowed connection if that one has not yet
     * prepared it, and the command goes out with that connection's own id.
     */
    private void runStatement(Packet packet, Command command) {
        ByteBuf payload = packet.payload();
        int id = payload.readableBytes() >= 5 ? payload.getIntLE(payload.readerIndex() + 1) : 0;
        PreparedStatements.Prepared statement = statements.get(id);
        if (command == Command.COM_STMT_CLOSE) {
            statements.remove(id); // no answer; connections keep their copies until evicted or reset
            packet.release();
            return;
        }
        if (statement == null) {
            packet.release();
            reply(1, ErrPacket.of(ErrorCode.ER_UNKNOWN_STMT_HANDLER, Integer.toUnsignedString(id), command.name()));
            return;
        }
        if (command == Command.COM_STMT_RESET
                && (lease.current() == null || lease.current().statementId(statement.sql) == null)) {
            packet.release(); // nothing of it is bound on any server session this client holds
            reply(1, OkPacket.of(0, 0, lease.statusFlags(), 0));
            return;
        }
        busy = true;
        lease.acquire(desired, (connection, error) -> {
            if (!proceed(packet, error)) {
                return;
            }
            Integer backendId = connection.statementId(statement.sql);
            if (backendId != null) {
                sendStatement(connection, packet, command, statement, backendId);
                return;
            }
            lease.runInternal(
                    out -> out.writeByte(Command.COM_STMT_PREPARE.code())
                            .writeCharSequence(statement.sql, StandardCharsets.UTF_8),
                    Response.PREPARE,
                    (response, failed) -> {
                        if (failed) {
                            packet.release();
                            fail(ErrPacket.read(response.skipBytes(4)));
                            return;
                        }
                        int prepared = response.getIntLE(response.readerIndex() + 5);
                        remember(connection, statement.sql, prepared);
                        sendStatement(connection, packet, command, statement, prepared);
                    });
        });
    }

    private void sendStatement(
            PooledConnection connection,
            Packet packet,
            Command command,
            PreparedStatements.Prepared statement,
            int backendId) {
        packet.payload().setIntLE(packet.payload().readerIndex() + 1, backendId);
        switch (command) {
            case COM_STMT_EXECUTE -> {
                lease.unpin(PinReason.LONG_DATA); // the long data is consumed by this execution
                send(
                        connection,
                        ExecuteTypes.bound(packet, statement),
                        Response.RESULT_SET,
                        StatementEffects.NONE,
                        false);
            }
            case COM_STMT_FETCH -> send(connection, packet, Response.ROWS, StatementEffects.NONE, false);
            case COM_STMT_RESET -> send(connection, packet, Response.SINGLE, StatementEffects.NONE, false);
            default -> {
                // COM_STMT_SEND_LONG_DATA: no answer; its data waits in that server session
                lease.pin(EnumSet.of(PinReason.LONG_DATA));
                send(connection, packet, null, StatementEffects.NONE, false);
            }
        }
    }

    /** Records a backend statement id on {@code connection}, closing one that falls out of its cache. */
    private static void remember(PooledConnection connection, String sql, int backendId) {
        Integer evicted = connection.rememberStatement(sql, backendId);
        if (evicted != null) {
            connection
                    .channel()
                    .writeAndFlush(PacketWriter.frame(
                            connection.channel().alloc(),
                            0,
                            5,
                            out -> out.writeByte(Command.COM_STMT_CLOSE.code()).writeIntLE(evicted)));
        }
    }

    @Override
    public void prepareOk(ByteBuf in, int payload) {
        String sql = pendingPrepareSql;
        PooledConnection connection = lease.current();
        if (sql == null || connection == null) {
            return;
        }
        int backendId = in.getIntLE(payload + 1);
        int clientId = statements.add(sql, in.getUnsignedShortLE(payload + 7));
        remember(connection, sql, backendId);
        in.setIntLE(payload + 1, clientId); // the client sees the router's id
    }

    @Override
    public void responsesComplete(int count, int statusFlags, boolean lastWasError) {
        finishCommand(statusFlags, lastWasError);
    }

    private void finishCommand(int statusFlags, boolean error) {
        StatementEffects effects = inFlightEffects;
        inFlightEffects = StatementEffects.NONE;
        pendingPrepareSql = null;
        if (!error) {
            desired = desired.apply(effects);
            if (lease.current() != null) {
                lease.current().state(lease.current().state().apply(effects));
            }
            lease.pin(effects.pins());
        } else if (!effects.variables().isEmpty() && lease.current() != null) {
            // a failed SET may have applied part of its assignments: that session is unknown now
            lease.pin(EnumSet.of(PinReason.UNTRACKED_SET));
        }
        busy = false;
        lease.afterResponse(statusFlags, inFlightInsert && !error);
        drain();
    }

    /** Runs queued commands until one is outstanding again; resumes reading when the queue is empty. */
    private void drain() {
        while (!busy && changeUser == null && !closed && !waiting.isEmpty()) {
            dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && !closed && !busy) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void resetConnection(Packet packet) {
        lease.clearStickyPins();
        statements.clear();
        desired = SessionVariables.initial(desired.schema());
        if (lease.current() == null) {
            // nothing of this session lives in a server session: a fresh state is just a new borrow
            packet.release();
            reply(1, OkPacket.of(0, 0, lease.statusFlags(), 0));
            return;
        }
        PooledConnection c = lease.current();
        c.state(SessionVariables.initial(c.state().schema()));
        c.forgetStatements();
        run(packet, Response.SINGLE, StatementEffects.NONE, false);
    }

    @Override
    public void localInfileRequested() {
        uploading = true;
    }

    @Override
    public void internalResponse(ByteBuf response, boolean error) {
        lease.onInternalResponse(response, error);
    }

    @Override
    public void backendLost(String reason, boolean midPacket, int nextSequenceId) {
        if (closed) {
            return;
        }
        boolean pinned = !lease.pins().isEmpty();
        lease.discard();
        if (busy && !midPacket) {
            log.warn("connection {}: {}", connectionId, reason);
            ErrPacket lost = new ErrPacket(2013, "08S01", "Lost connection to backend during query: " + reason);
            closeWith(frame(nextSequenceId, lost::write));
        } else if (busy || pinned) {
            // its server session (transaction, variables, locks) is gone: so must the client's be
            log.warn("connection {}: {}", connectionId, reason);
            close();
        }
        // else: an idle, unpinned session just borrows another connection next time
    }

    private void startChangeUser(Packet packet) {
        ComChangeUser request;
        try {
            request = ComChangeUser.read(packet.payload(), capabilities);
        } catch (RuntimeException e) {
            reply(1, ErrPacket.of(ErrorCode.ER_MALFORMED_PACKET));
            return;
        } finally {
            packet.release();
        }
        ClientAuthentication auth = new ClientAuthentication(
                services.users(),
                services.rsaKeys(),
                services.rsaPublicKeyPem(),
                ctx.pipeline().get("tls") != null,
                "client");
        changeUser = new ChangeUserExchange(request, auth, seed, this);
        changeUser.start();
    }

    /** COM_CHANGE_USER authenticated {@code newUser}: the session starts over as that user. */
    void changedUser(UserConfig newUser, ComChangeUser request, int sequenceId) {
        user = newUser;
        statements.clear();
        String schema =
                request.schema() != null && !request.schema().isEmpty() ? request.schema() : newUser.defaultSchema();
        lease.clearStickyPins();
        lease.kind(new ConnectionKind(
                capabilities.flags() & BackendConnector.RESULT_FORMAT,
                capabilities.mariaDbFlags(),
                request.characterSet(),
                schema));
        desired = SessionVariables.initial(schema);
        Consumer<ErrPacket> finish = error -> {
            changeUser = null;
            if (error != null) {
                closeWith(frame(sequenceId, error::write));
                return;
            }
            lease.releaseIfFree();
            reply(sequenceId, OkPacket.of(0, 0, lease.statusFlags(), 0));
            drain();
        };
        // a held connection carries the old user's session (and maybe its transaction): close it
        lease.discard();
        lease.acquire(desired, (connection, error) -> finish.accept(error));
    }

    void writeToClient(ByteBuf frame) {
        ctx.writeAndFlush(frame, ctx.voidPromise());
    }

    ByteBuf frame(int sequenceId, Consumer<ByteBuf> payload) {
        return PacketWriter.frame(ctx.alloc(), sequenceId, 64, payload);
    }

    private void reply(int sequenceId, OkPacket ok) {
        ctx.writeAndFlush(frame(sequenceId, out -> ok.write(out, capabilities)), ctx.voidPromise());
    }

    private void reply(int sequenceId, ErrPacket error) {
        ctx.writeAndFlush(frame(sequenceId, error::write), ctx.voidPromise());
    }

    /** Sends {@code lastPacket} (an ERR) and closes the client; the backend connection is closed. */
    void closeWith(ByteBuf lastPacket) {
        changeUser = null;
        closed = true;
        releaseWaiting();
        lease.discard();
        ctx.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }

    private void close() {
        closed = true;
        releaseWaiting();
        lease.close();
        ctx.close();
    }

    private void releaseWaiting() {
        Packet p;
        while ((p = waiting.poll()) != null) {
            p.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // backpressure: stop reading the backend while the client cannot keep up
        PooledConnection c = lease.current();
        if (c != null) {
            c.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!closed) {
            closed = true;
            releaseWaiting();
            // a connection in the middle of anything is closed: the server rolls back what was open
            lease.close();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PacketTooLargeException) {
            log.info("connection {}: {}", connectionId, cause.getMessage());
            closeWith(frame(busy ? 0 : 1, ErrPacket.of(ErrorCode.ER_NET_PACKET_TOO_LARGE)::write));
        } else {
            log.debug("connection {}: {}", connectionId, cause.toString());
            close();
        }
    }
}
