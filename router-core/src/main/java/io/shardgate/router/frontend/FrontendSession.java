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
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.ClientCharset;
import io.shardgate.router.session.KillStatement;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.ProcesslistQuery;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.List;
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
final class FrontendSession extends ChannelInboundHandlerAdapter implements LeaseOwner, SessionPort {
    private static final Logger log = LoggerFactory.getLogger(FrontendSession.class);

    private final FrontendServices services;
    private final Capabilities capabilities;
    private final byte[] seed;
    private final int connectionId;
    private final int loginSequenceId;
    private final ArrayDeque<Packet> waiting = new ArrayDeque<>();
    private final SessionLeases leases;
    private final QueryRouter queries;
    /** The lease running the command in flight (single target), or null. */
    private BackendLease active;
    /** The explicit transaction the session is in, if any. */
    private final SessionTransaction transaction = new SessionTransaction();
    /** Drops what a command answered by the router itself holds, if the session closes first. */
    private Runnable routedAbort;
    /** Resumes the routed command in progress when the client can take writes again, or null. */
    private Runnable routedWritable;

    private ChannelHandlerContext ctx;
    private UserConfig user;
    /** The server session state this client asked for. */
    private SessionVariables desired;
    /** A command is between dispatch and the end of its response (or waits for a connection). */
    private boolean busy;
    /** Effects of the statement in flight, applied when it succeeds. */
    private StatementEffects inFlightEffects = StatementEffects.NONE;

    private boolean inFlightInsert;
    /** The command in flight only reads the diagnostics area (see {@link #diagnosticsStatement}). */
    private boolean inFlightDiagnostics;
    /** The statement in flight, kept to run again if the connection borrowed for it was dead. */
    private final StatementRetry retry = new StatementRetry();
    /**
     * The client's command from {@link #withConnection} until it is written to a backend (which
     * releases it) or answered: one reference owned here rather than by the callbacks of the
     * setup steps run before it (alignment, BEGIN, a lazy prepare), because a lost backend or a
     * closed session drops those callbacks unrun.
     */
    private Packet unsent;
    /** A LOCAL INFILE upload is running: client packets are file data until an empty one. */
    private boolean uploading;

    /** The COM_QUERY / COM_STMT_EXECUTE in flight, timed for the metrics. */
    private final StatementRecorder statement;

    private ChangeUserExchange changeUser;
    private final PreparedStatementCommands prepared;
    private final LastInsertId lastInsertId = new LastInsertId();
    private final PreviousStatement previous = new PreviousStatement();
    /** The client's character set, computed for {@link #charsetOf} and {@link #charsetCollation}. */
    private Charset clientCharset;

    private SessionVariables charsetOf;
    private int charsetCollation = -1;
    private final SessionCache cache;
    /** What PROCESSLIST shows this session doing. */
    private final SessionActivity activity = new SessionActivity();

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
        this.leases = new SessionLeases(services.hostgroups(), loop, kind, this, transaction);
        this.queries = new QueryRouter(this);
        this.prepared = new PreparedStatementCommands(this);
        this.cache = new SessionCache(this, services.cache());
        this.statement = new StatementRecorder(services.metrics());
    }

    /** Finishes the login: the schema the client asked for must exist (MySQL checks at login). */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        cache.install(ctx.pipeline());
        busy = true;
        BackendLease lease = home();
        lease.acquire(desired, (connection, error) -> {
            busy = false;
            if (error != null) {
                closeWith(frame(loginSequenceId, error::write));
                return;
            }
            int status = lease.current().relay().statusFlags();
            lease.releaseIfFree();
            services.sessions().add(connectionId, this);
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
            PooledConnection c = active.current();
            c.channel().writeAndFlush(packet, c.channel().voidPromise());
        } else if (changeUser != null && changeUser.expectsClientPacket()) {
            changeUser.onClientPacket(packet);
        } else if (busy
                || changeUser != null
                || !waiting.isEmpty()
                || !ctx.channel().isWritable()) {
            // one command at a time, and none while the client does not read its answers: a client
            // that pipelines without reading fills its own socket, not the router's memory
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
        services.metrics().command(command);
        statement.forget();
        previous.commandStarts(command);
        ErrPacket tooLong = statementTooLong(command, payload);
        if (tooLong != null) {
            packet.release();
            reply(1, tooLong);
            return;
        }
        String text = command == Command.COM_QUERY || command == Command.COM_STMT_PREPARE ? text(payload) : null;
        activity.started(command, text);
        switch (command) {
            case COM_QUERY -> {
                if (text == null) {
                    packet.release();
                    reply(1, undecodable());
                    return;
                }
                queries.route(packet, text);
            }
            case COM_INIT_DB -> {
                String schema = text(payload);
                if (schema == null) {
                    packet.release();
                    reply(1, undecodable());
                    return;
                }
                run(
                        leases.get(services.routing().current().homeOf(schema)),
                        packet,
                        Response.SINGLE,
                        new StatementEffects(java.util.Map.of(), schema, Set.of(), false, false),
                        false);
            }
            case COM_STMT_PREPARE -> prepared.prepare(packet);
            case COM_STMT_EXECUTE, COM_STMT_FETCH, COM_STMT_RESET, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE ->
                prepared.run(packet, command);
            case COM_FIELD_LIST ->
                run(fieldListLease(payload), packet, Response.FIELD_LIST, StatementEffects.NONE, false);
            case COM_STATISTICS -> run(home(), packet, Response.STATISTICS, StatementEffects.NONE, false);
            case COM_PROCESS_INFO -> {
                packet.release(); // the router's sessions, not the backend's threads
                ProcesslistCommand.run(this, ProcesslistQuery.parse("SHOW PROCESSLIST"));
            }
            case COM_PROCESS_KILL -> {
                long id = payload.readableBytes() >= 5 ? payload.getUnsignedIntLE(payload.readerIndex() + 1) : -1;
                packet.release();
                KillCommand.run(this, new KillStatement(false, id, null));
            }
            case COM_DEBUG, COM_REFRESH -> run(home(), packet, Response.SINGLE, StatementEffects.NONE, false);
            case COM_SET_OPTION -> {
                // switches multi-statements on that server session only
                home().pin(EnumSet.of(PinReason.UNTRACKED_SET));
                run(home(), packet, Response.SINGLE, StatementEffects.NONE, false);
            }
            case COM_RESET_CONNECTION -> resetConnection(packet);
            case COM_PING -> {
                packet.release();
                reply(1, OkPacket.of(0, 0, leases.statusFlags(), 0));
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

    /**
     * ER_NET_PACKET_TOO_LARGE for SQL text beyond {@code server.max_statement_bytes}, or null. The
     * session stays open (unlike a packet beyond max_allowed_packet, after which MySQL closes): the
     * whole packet was read, so the stream is still in step. Vitess answers its max_payload_size
     * the same way.
     */
    private ErrPacket statementTooLong(Command command, ByteBuf payload) {
        int max = services.settings().maxStatementBytes();
        int length = payload.readableBytes() - 1;
        if (max == 0 || length <= max || (command != Command.COM_QUERY && command != Command.COM_STMT_PREPARE)) {
            return null;
        }
        log.debug("connection {}: {} of {} bytes refused", connectionId, command, length);
        return Errors.of(
                ErrorCode.ER_NET_PACKET_TOO_LARGE,
                "Statement of " + length + " bytes is larger than server.max_statement_bytes (" + max + " bytes)");
    }

    @Override
    public void run(
            BackendLease lease,
            Packet packet,
            Response response,
            StatementEffects effects,
            boolean insert,
            boolean read) {
        if (!effects.pins().isEmpty() && !effects.pins().contains(PinReason.UNTRACKED_SET)) {
            // pin before sending: e.g. GET_LOCK must stay with its connection even if it fails halfway
            lease.pin(effects.pins());
        }
        withConnection(
                lease,
                packet,
                connection -> send(connection, packet, response, effects, insert),
                read && StatementRetry.eligible(lease, response, effects));
    }

    @Override
    public void withConnection(BackendLease lease, Packet packet, Consumer<PooledConnection> then, boolean retryable) {
        busy = true;
        active = lease;
        // (inside a transaction the retry would have to replay its BEGIN: not worth it)
        retry.start(packet, then, retryable && transaction.start() == null);
        acquire(lease, packet, then);
    }

    /** Borrows and aligns a connection for {@code packet}, whose reference passes to {@link #unsent}. */
    private void acquire(BackendLease lease, Packet packet, Consumer<PooledConnection> then) {
        releaseUnsent(); // none is left over: one command at a time
        unsent = packet;
        // only statements run inside the transaction: a COM_STMT_PREPARE (MariaDB Connector/J sends
        // it at the first execution, mid-transaction) must not begin it on the hostgroup it goes to
        int command = packet.payload().getUnsignedByte(packet.payload().readerIndex());
        List<String> begin = command == Command.COM_QUERY.code() || command == Command.COM_STMT_EXECUTE.code()
                ? transaction.beginSteps()
                : null;
        lease.acquire(desired, begin, (connection, error) -> {
            if (proceed(error)) {
                if (begin != null) {
                    transaction.reached();
                }
                retry.sent();
                then.accept(connection);
            }
        });
    }

    /** Releases the client's command if it was neither sent nor released yet (see {@link #unsent}). */
    private void releaseUnsent() {
        if (unsent != null) {
            Packet p = unsent;
            unsent = null;
            p.release();
        }
    }

    @Override
    public void startRouted(Runnable abort, Runnable writable) {
        busy = true;
        active = null;
        routedAbort = abort;
        routedWritable = writable;
    }

    /**
     * A command started with {@link #startRouted} (parked behind a cache fill) runs after all:
     * {@code command} routes it as if it had just arrived.
     */
    void resumeRouted(Runnable command) {
        busy = false;
        routedAbort = null;
        command.run();
        drain();
    }

    @Override
    public SessionCache cache() {
        return cache;
    }

    @Override
    public void finishRouted(ByteBuf response) {
        cache.routedResponse(response);
        busy = false;
        statement.ended(false);
        routedAbort = null;
        routedWritable = null;
        prepared.commandFinished();
        if (!closed) {
            ctx.writeAndFlush(response, ctx.voidPromise());
        } else {
            response.release();
        }
        afterStatement();
        leases.releaseIfFree();
        drain();
    }

    @Override
    public StatementRecorder statement() {
        return statement;
    }

    /**
     * An explicit transaction ends with the last connection that has it open. Under autocommit=0
     * too: its BEGIN must not be replayed before the statements after COMMIT (a SET TRANSACTION
     * there got 1568, issue 23's mtr main.commit).
     */
    private void afterStatement() {
        if (transaction.opened() && !leases.serverTransactionOpen()) {
            transaction.end();
        }
    }

    /** False (the command answered or dropped) when the session closed or no connection came. */
    private boolean proceed(ErrPacket error) {
        if (closed || error != null) {
            retry.drop();
        }
        if (closed) {
            releaseUnsent();
            leases.close();
            return false;
        }
        if (error != null) {
            fail(error);
            return false;
        }
        return true;
    }

    @Override
    public void fail(ErrPacket error) {
        inFlightDiagnostics = false;
        releaseUnsent();
        busy = false;
        statement.ended(true);
        prepared.commandFinished();
        reply(1, error);
        leases.releaseIfFree();
        afterStatement();
        drain();
    }

    @Override
    public void send(
            PooledConnection connection, Packet packet, Response response, StatementEffects effects, boolean insert) {
        if (packet == unsent) {
            unsent = null; // the backend's encoder releases it now
        }
        inFlightEffects = effects;
        inFlightInsert = insert;
        if (response != null) {
            connection.relay().expect(response);
        }
        connection.channel().writeAndFlush(packet, connection.channel().voidPromise());
        if (response == null) {
            finishCommand(active.statusFlags(), false);
        }
    }

    @Override
    public void prepareOk(BackendLease lease, ByteBuf in, int payload) {
        prepared.prepareOk(lease, in, payload);
    }

    @Override
    public void responsesComplete(BackendLease lease, int statusFlags, boolean lastWasError) {
        finishCommand(statusFlags, lastWasError);
    }

    private void finishCommand(int statusFlags, boolean error) {
        retry.drop();
        BackendLease lease = active;
        PooledConnection connection = lease.current();
        boolean diagnosticsStatement = inFlightDiagnostics;
        inFlightDiagnostics = false;
        int warnings = connection != null ? connection.relay().warnings() : 0;
        Boolean hold = DiagnosticsHold.after(diagnosticsStatement, lease.holdsDiagnostics(), error, warnings);
        long insertId = connection != null ? connection.relay().insertId() : 0;
        long rows = connection != null ? connection.relay().rows() : 0;
        long affected = connection != null ? connection.relay().affectedRows() : 0;
        if (hold == null && connection != null) {
            // the statement raised nothing, but one without tables leaves the earlier warnings
            // in place: ask the server (the next command waits, as the command is not over)
            lease.countWarnings(count -> finishCommand(statusFlags, error, count > 0, insertId, rows, affected));
            return;
        }
        finishCommand(statusFlags, error, hold != null && hold, insertId, rows, affected);
    }

    private void finishCommand(
            int statusFlags, boolean error, boolean holdDiagnostics, long insertId, long rows, long affected) {
        StatementEffects effects = inFlightEffects;
        inFlightEffects = StatementEffects.NONE;
        prepared.commandFinished();
        BackendLease lease = active;
        if (effects.changesGlobals() && lease.current() != null) {
            lease.current().partition().pool().globalsChanged(); // even a failed SET may have set some
        }
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
        if (inFlightInsert && !error && lease.current() != null && insertId != 0) {
            // the backend may have generated an AUTO_INCREMENT value: its LAST_INSERT_ID() counts now
            lastInsertId.backendInsert();
        }
        busy = false;
        if (lease.current() != null) {
            previous.ranOn(lease, lease.epoch());
            statement.ended(error, rows, affected);
        } else {
            statement.ended(error);
        }
        leases.statementEnded(lease);
        lease.afterResponse(statusFlags, inFlightInsert && !error, holdDiagnostics);
        afterStatement();
        cache.commandEnded(error);
        drain();
    }

    /** Runs queued commands until one is outstanding again; resumes reading when the queue is empty. */
    private void drain() {
        if (!busy) {
            activity.idle();
        }
        while (!busy
                && changeUser == null
                && !closed
                && !waiting.isEmpty()
                && ctx.channel().isWritable()) {
            dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && !closed && !busy && ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void resetConnection(Packet packet) {
        leases.clearStickyPins();
        lastInsertId.reset();
        previous.reset();
        prepared.clear();
        transaction.end();
        desired = SessionVariables.initial(desired.schema());
        BackendLease home = home();
        for (BackendLease other : leases.all()) {
            if (other != home) {
                other.discard(); // its server session (variables, transaction) is the old one
            }
        }
        if (home.current() == null) {
            // nothing of this session lives in a server session: a fresh state is just a new borrow
            packet.release();
            reply(1, OkPacket.of(0, 0, leases.statusFlags(), 0));
            return;
        }
        PooledConnection c = home.current();
        c.state(SessionVariables.initial(c.state().schema()));
        c.forgetStatements();
        run(home, packet, Response.SINGLE, StatementEffects.NONE, false);
    }

    @Override
    public void localInfileRequested() {
        uploading = true;
    }

    @Override
    public void backendLost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        if (closed) {
            return;
        }
        boolean pinned = lease.holdsSessionState();
        boolean lostDiagnostics = lease.holdsDiagnostics();
        boolean running = busy && (lease == active || active == null);
        boolean relayed = running && lease == active && !lease.internalPending() && !uploading;
        boolean unread = lease.current() != null && !lease.current().relay().responseStarted();
        boolean setup = lease == active && lease.internalPending();
        lease.discard();
        if (lostDiagnostics) {
            leases.diagnosticsUnknown(); // the warnings were in that server session
        }
        if (setup) {
            // a step of the router's own before the client's command died with the connection:
            // its callbacks, which would have sent or released the command, never run
            releaseUnsent();
        }
        if (running
                && !pinned
                && lease == active
                && retry.kept()
                && unread
                && !lease.writingStatement()
                // a setup step was cut: the client's statement itself never left the router
                && (setup || retry.withinWindow())) {
            // the connection was dead before the server read the statement (a pooled connection
            // killed or timed out on the server): run it on a fresh one, the client sees nothing
            log.debug("connection {}: {}; running the statement again on another connection", connectionId, reason);
            Consumer<PooledConnection> then = retry.then();
            Packet again = retry.next();
            services.metrics().statementRetried();
            // borrow after the loop's pending I/O: the closes of other pooled connections the
            // server dropped at the same moment are seen first, so those are not borrowed next
            ctx.channel().eventLoop().execute(() -> acquire(lease, again, then));
            return;
        }
        retry.drop();
        if (running || pinned) {
            log.warn(
                    "connection {}: {} ({})",
                    connectionId,
                    reason,
                    unread ? "before the statement's response started" : "during the statement's response");
        }
        ErrPacket lost = new ErrPacket(2013, "08S01", "Lost connection to backend during query: " + reason);
        if (relayed && !midPacket && !pinned) {
            // the client's own statement, and nothing of the session lived on that server session:
            // answer it, go on
            answerInFlight(nextSequenceId, lost);
        } else if (running && !midPacket) {
            closeWith(frame(nextSequenceId, lost::write));
        } else if (running || pinned) {
            // its server session (transaction, variables, locks) is gone: so must the client's be
            close();
        }
        // else: an idle, unpinned session just borrows another connection next time
    }

    @Override
    public void queryTimedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        if (closed) {
            return;
        }
        boolean pinned = lease.holdsSessionState();
        boolean lostDiagnostics = lease.holdsDiagnostics();
        boolean running = busy && lease == active;
        boolean relayed = running && !lease.internalPending() && !uploading;
        boolean setup = lease == active && lease.internalPending();
        lease.discard();
        if (lostDiagnostics) {
            leases.diagnosticsUnknown(); // the warnings were in that server session
        }
        if (setup) {
            releaseUnsent(); // as in backendLost: the setup step's callbacks never run
        }
        log.warn("connection {}: {}", connectionId, reason);
        ErrPacket timeout = Errors.of(ErrorCode.ER_QUERY_TIMEOUT, ErrorCode.ER_QUERY_TIMEOUT.format() + ": " + reason);
        if (relayed && !midPacket && !pinned) {
            answerInFlight(nextSequenceId, timeout);
        } else if (!midPacket && (running || (busy && active == null))) {
            // its transaction, variables or locks are gone with the connection: so is the client's session
            closeWith(frame(nextSequenceId, timeout::write));
        } else {
            close();
        }
    }

    /**
     * Ends the statement in flight with {@code error} (sequence {@code sequenceId}, after what its
     * backend relayed) when its backend connection is gone but held nothing of the session.
     */
    private void answerInFlight(int sequenceId, ErrPacket error) {
        inFlightEffects = StatementEffects.NONE;
        busy = false;
        statement.ended(true);
        prepared.commandFinished();
        reply(sequenceId, error);
        leases.releaseIfFree();
        afterStatement();
        drain();
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
                remoteHost());
        changeUser = new ChangeUserExchange(request, auth, seed, this);
        changeUser.start();
    }

    /** The client's host, as access-denied messages and the failed-login count name it. */
    String remoteHost() {
        return ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress a ? a.getHostString() : "unknown";
    }

    /** COM_CHANGE_USER authenticated {@code newUser}: the session starts over as that user. */
    void changedUser(UserConfig newUser, ComChangeUser request, int sequenceId) {
        user = newUser;
        prepared.clear();
        lastInsertId.reset();
        previous.reset();
        String schema =
                request.schema() != null && !request.schema().isEmpty() ? request.schema() : newUser.defaultSchema();
        leases.clearStickyPins();
        transaction.end();
        leases.kind(new ConnectionKind(
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
            leases.releaseIfFree();
            reply(sequenceId, OkPacket.of(0, 0, leases.statusFlags(), 0));
            drain();
        };
        // a held connection carries the old user's session (and maybe its transaction): close it
        leases.discard();
        home().acquire(desired, (connection, error) -> finish.accept(error));
    }

    @Override
    public BackendLease home() {
        return leases.get(services.routing().current().homeOf(desired.schema()));
    }

    /**
     * The text of a command's payload after its command byte, in the client's character set; null
     * when that character set is not known to the router and the text is not plain ASCII.
     */
    @Override
    public String text(ByteBuf payload) {
        int from = payload.readerIndex() + 1;
        int length = payload.readableBytes() - 1;
        Charset charset = clientCharset();
        if (charset == null && payload.forEachByte(from, length, b -> b >= 0) >= 0) {
            return null;
        }
        return payload.toString(from, length, charset != null ? charset : StandardCharsets.US_ASCII);
    }

    private ErrPacket undecodable() {
        return Errors.notSupported("statement text with bytes beyond ASCII in character set "
                + Collations.charsetOf(leases.kind().characterSet())
                + " or one set by SET NAMES that Shardgate cannot decode (use utf8mb4, latin1 or another character"
                + " set with a Java equivalent)");
    }

    @Override
    public Charset textCharset() {
        Charset charset = clientCharset();
        return charset != null ? charset : StandardCharsets.US_ASCII;
    }

    /** The client's character_set_client as a Java charset, or null when unknown (cached per session state). */
    private Charset clientCharset() {
        if (charsetOf != desired || charsetCollation != leases.kind().characterSet()) {
            charsetOf = desired;
            charsetCollation = leases.kind().characterSet();
            clientCharset = ClientCharset.of(charsetCollation, desired.fragments());
        }
        return clientCharset;
    }

    /** COM_FIELD_LIST names a table: ask a hostgroup that holds it. */
    private BackendLease fieldListLease(ByteBuf payload) {
        int end = payload.indexOf(payload.readerIndex() + 1, payload.writerIndex(), (byte) 0);
        String table = payload.toString(
                payload.readerIndex() + 1,
                (end < 0 ? payload.writerIndex() : end) - payload.readerIndex() - 1,
                textCharset());
        return leases.get(services.routing().current().anyHostgroupOf(desired.schema(), table));
    }

    /** What the admin interface shows of this session; call on its event loop. */
    SessionInfo info() {
        Set<PinReason> pins = leases.pins();
        return new SessionInfo(
                connectionId,
                user.name(),
                desired.schema(),
                String.valueOf(ctx.channel().remoteAddress()),
                !pins.isEmpty(),
                pins.stream().map(PinReason::description).toList(),
                leases.held(),
                activity.command(),
                activity.seconds(),
                activity.info());
    }

    /** What this session buffers for its client right now; call on its event loop. */
    SessionBuffers buffers() {
        Channel client = ctx.channel();
        io.netty.channel.ChannelOutboundBuffer outbound = client.unsafe().outboundBuffer();
        PooledConnection relaying = active != null ? active.current() : null;
        return new SessionBuffers(
                connectionId,
                outbound == null ? 0 : outbound.totalPendingWriteBytes(),
                client.config().isAutoRead(),
                waiting.size(),
                relaying == null ? null : relaying.channel().config().isAutoRead());
    }

    @Override
    public int connectionId() {
        return connectionId;
    }

    /** True once the session has closed (or is closing). */
    boolean isClosed() {
        return closed;
    }

    /**
     * KILL [CONNECTION] ended this session: its backend connections are closed (a statement in
     * flight was interrupted by the KILL first). {@code lastError} is sent before closing (a
     * session that killed itself hears 1927), or null. Call on the session's loop.
     */
    void killConnection(ErrPacket lastError) {
        if (closed) {
            return;
        }
        if (lastError != null) {
            closeWith(frame(1, lastError::write));
        } else {
            close();
        }
    }

    @Override
    public LastInsertId lastInsertId() {
        return lastInsertId;
    }

    @Override
    public PreviousStatement previous() {
        return previous;
    }

    @Override
    public SessionLeases leases() {
        return leases;
    }

    @Override
    public FrontendServices services() {
        return services;
    }

    @Override
    public SessionVariables desired() {
        return desired;
    }

    @Override
    public UserConfig user() {
        return user;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public SessionTransaction transaction() {
        return transaction;
    }

    @Override
    public void replyRows(List<TextResultSet.Column> columns, List<List<Object>> rows) {
        ctx.writeAndFlush(
                TextResultSet.write(ctx.alloc(), capabilities, columns, rows, leases.statusFlags()), ctx.voidPromise());
    }

    void writeToClient(ByteBuf frame) {
        ctx.writeAndFlush(frame, ctx.voidPromise());
    }

    @Override
    public void writeRouted(ByteBuf frames) {
        cache.routedPart(frames);
        ctx.writeAndFlush(frames, ctx.voidPromise());
    }

    @Override
    public ByteBuf frame(int sequenceId, Consumer<ByteBuf> payload) {
        return PacketWriter.frame(ctx.alloc(), sequenceId, 64, payload);
    }

    @Override
    public void diagnosticsStatement() {
        inFlightDiagnostics = true;
    }

    @Override
    public void reply(int sequenceId, OkPacket ok) {
        ctx.writeAndFlush(frame(sequenceId, out -> ok.write(out, capabilities)), ctx.voidPromise());
    }

    @Override
    public void reply(int sequenceId, ErrPacket error) {
        services.metrics().error(error.code());
        leases.diagnosticsUnknown(); // the router's own error is in no server session's diagnostics
        cache.commandEnded(true);
        ctx.writeAndFlush(frame(sequenceId, error::write), ctx.voidPromise());
    }

    /** Sends {@code lastPacket} (an ERR) and closes the client; the backend connection is closed. */
    void closeWith(ByteBuf lastPacket) {
        changeUser = null;
        closed = true;
        services.sessions().remove(connectionId);
        releaseWaiting();
        leases.discard();
        ctx.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }

    private void close() {
        closed = true;
        services.sessions().remove(connectionId);
        releaseWaiting();
        leases.close();
        ctx.close();
    }

    private void releaseWaiting() {
        retry.drop();
        releaseUnsent();
        cache.sessionClosed();
        routedWritable = null;
        if (routedAbort != null) {
            Runnable abort = routedAbort;
            routedAbort = null;
            abort.run();
        }
        Packet p;
        while ((p = waiting.poll()) != null) {
            p.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // backpressure: stop reading the backend while the client cannot keep up
        PooledConnection c = active != null ? active.current() : null;
        if (c != null) {
            c.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        if (routedWritable != null && ctx.channel().isWritable()) {
            routedWritable.run();
        }
        if (ctx.channel().isWritable() && !waiting.isEmpty()) {
            // commands held back while the client was not reading; later, not inside the write
            // (a flush in the middle of a command) that made the channel writable
            ctx.executor().execute(() -> {
                if (!busy && changeUser == null && !closed) {
                    drain();
                }
            });
        } else if (ctx.channel().isWritable() && !busy && changeUser == null && !closed && !uploading) {
            ctx.executor().execute(() -> {
                if (!busy
                        && changeUser == null
                        && !closed
                        && waiting.isEmpty()
                        && ctx.channel().isWritable()) {
                    ctx.channel().config().setAutoRead(true);
                }
            });
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        services.sessions().remove(connectionId);
        if (!closed) {
            closed = true;
            releaseWaiting();
            // a connection in the middle of anything is closed: the server rolls back what was open
            leases.close();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PacketTooLargeException) {
            log.info("connection {}: {}", connectionId, cause.getMessage());
            closeWith(frame(busy ? 0 : 1, ErrPacket.of(ErrorCode.ER_NET_PACKET_TOO_LARGE)::write));
        } else if (cause instanceof java.io.IOException) {
            log.debug("connection {}: {}", connectionId, cause.toString());
            close();
        } else {
            // a bug of ours: say so loudly, and close rather than answer from an unknown state
            log.warn("connection {}: closing after an unexpected error", connectionId, cause);
            close();
        }
    }
}
