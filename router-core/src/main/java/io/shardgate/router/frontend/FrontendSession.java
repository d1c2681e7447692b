package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.shardgate.cache.QualifiedTable;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.frame.PacketTooLargeException;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.BackendThread;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.PinReason;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client connection in the command phase: the Netty handler, the command queue,
 * backpressure and the session's lifecycle.
 *
 * <p>Design note. Commands run one at a time: {@link CommandDispatch} hands each to what carries
 * it out (an executor such as {@link QueryRouter}, which sees the session only as its {@link
 * SessionPort}, implemented by {@link ClientSession}), and {@link CommandInFlight} holds it until
 * its response ends, applying its effects ({@link io.shardgate.router.session.StatementEffects})
 * when it succeeds. A command borrows a
 * backend connection through one of the session's {@link BackendLease}s (multiplexing), which
 * first brings that server session to the client's state ({@link SessionState}); the response is
 * relayed back as raw bytes. Commands that arrive while one is outstanding wait in a queue and the
 * client's reads pause, as they do while the client does not read its answers, so a pipelining
 * client cannot make the router buffer without bound.
 *
 * <p>Threading: the client channel and every backend connection it borrows share one event
 * loop; everything here runs on it. Ownership: a {@link Packet} read from the client is either
 * written to a backend (which releases it), queued (released on close) or released here.
 */
public final class FrontendSession extends ChannelInboundHandlerAdapter implements SessionLifecycle {
    private static final Logger log = LoggerFactory.getLogger(FrontendSession.class);

    private final FrontendServices services;
    private final int connectionId;
    private final int loginSequenceId;
    private final ArrayDeque<Packet> waiting = new ArrayDeque<>();
    private final SessionState state;
    /** The session as executors see it. */
    private final ClientSession session;

    private final CommandInFlight command;
    private final CommandWaiters waiters;

    private final CommandDispatch dispatch;
    private final SessionReset reset;
    /** What PROCESSLIST shows this session doing. */
    private final SessionActivity activity = new SessionActivity();

    private ChannelHandlerContext ctx;
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
            EventLoop loop) {
        this.services = services;
        this.connectionId = connectionId;
        this.loginSequenceId = loginSequenceId;
        this.state = new SessionState(user, schema);
        ConnectionKind kind = new ConnectionKind(
                capabilities.flags() & BackendConnector.RESULT_FORMAT,
                capabilities.mariaDbFlags(),
                characterSet,
                schema);
        this.session = new ClientSession(services, capabilities, connectionId, state, kind, loop, this);
        this.command = session.command();
        this.waiters = new CommandWaiters(command, session, () -> closed);
        this.reset = new SessionReset(session, this, state, session.prepared(), seed);
        this.dispatch = new CommandDispatch(session, this, session.clientText(), reset, session.prepared(), activity);
    }

    /** Finishes the login: the schema the client asked for must exist (MySQL checks at login). */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        session.attach(ctx);
        command.busy(true);
        BackendLease lease = session.home();
        lease.acquire(state.desired(), (connection, error) -> {
            command.busy(false);
            if (error != null) {
                closeWith(session.frame(loginSequenceId, error::write));
                return;
            }
            int status = lease.current().relay().statusFlags();
            lease.releaseIfFree();
            services.sessions().add(connectionId, this);
            session.reply(loginSequenceId, OkPacket.of(0, 0, status, 0));
            ctx.channel().config().setAutoRead(true);
            drain();
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        if (closed) {
            packet.release();
        } else if (command.uploading()) {
            command.upload(packet);
        } else if (reset.expectsClientPacket()) {
            reset.onClientPacket(packet);
        } else if (command.busy()
                || reset.changingUser()
                || !waiting.isEmpty()
                || !ctx.channel().isWritable()) {
            // one command at a time, and none while the client does not read its answers: a client
            // that pipelines without reading fills its own socket, not the router's memory
            waiting.add(packet);
            ctx.channel().config().setAutoRead(false);
        } else {
            dispatch.dispatch(packet);
        }
    }

    /** Runs queued commands until one is outstanding again; resumes reading when the queue is empty. */
    @Override
    public void drain() {
        if (!command.busy()) {
            activity.idle();
        }
        waiters.commandMayHaveEnded();
        while (!command.busy()
                && !reset.changingUser()
                && !closed
                && !waiting.isEmpty()
                && ctx.channel().isWritable()) {
            dispatch.dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && !closed && !command.busy() && ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
        if (services.sessions().draining() && !closed) {
            // later, not inside the completion of the command that just ended
            ctx.executor().execute(this::applyDrain);
        }
    }

    /** The graceful drain's decision for this session now ({@link DrainDecision}); call on its loop. */
    void applyDrain() {
        if (closed) {
            return;
        }
        boolean inFlight = command.busy()
                || command.uploading()
                || reset.changingUser()
                || reset.expectsClientPacket()
                || !waiting.isEmpty();
        boolean inTransaction =
                state.transaction().start() != null || session.leases().serverTransactionOpen();
        SessionRegistry registry = services.sessions();
        switch (DrainDecision.decide(registry.draining(), registry.graceOver(), inFlight, inTransaction)) {
            case KEEP -> {}
            case CLOSE_IDLE -> {
                log.debug("connection {}: closed between statements (drain)", connectionId);
                closed = true;
                registry.remove(connectionId);
                releaseWaiting();
                session.leases().close();
                // what was written to the client reaches it before the FIN
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
            case CLOSE_GRACE_OVER -> {
                log.info(
                        "connection {}: closed by the drain's end ({})",
                        connectionId,
                        inTransaction ? "its transaction is rolled back" : "statement in flight");
                close();
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // backpressure: stop reading the backend while the client cannot keep up
        BackendLease active = command.active();
        PooledConnection c = active != null ? active.current() : null;
        if (c != null) {
            c.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        if (ctx.channel().isWritable()) {
            command.clientWritable();
        }
        if (ctx.channel().isWritable() && !waiting.isEmpty()) {
            // commands held back while the client was not reading; later, not inside the write
            // (a flush in the middle of a command) that made the channel writable
            ctx.executor().execute(() -> {
                if (!command.busy() && !reset.changingUser() && !closed) {
                    drain();
                }
            });
        } else if (ctx.channel().isWritable()
                && !command.busy()
                && !reset.changingUser()
                && !closed
                && !command.uploading()) {
            ctx.executor().execute(() -> {
                if (!command.busy()
                        && !reset.changingUser()
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
            session.leases().close();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PacketTooLargeException) {
            log.info("connection {}: {}", connectionId, cause.getMessage());
            closeWith(session.frame(command.busy() ? 0 : 1, ErrPacket.of(ErrorCode.ER_NET_PACKET_TOO_LARGE)::write));
        } else if (cause instanceof java.io.IOException) {
            log.debug("connection {}: {}", connectionId, cause.toString());
            close();
        } else {
            // a bug of ours: say so loudly, and close rather than answer from an unknown state
            log.warn("connection {}: closing after an unexpected error", connectionId, cause);
            close();
        }
    }

    /** The client channel; its event loop runs everything of this session. */
    public Channel client() {
        return ctx.channel();
    }

    /** The session as its executors see it (KILL reads the victim's user and leases). */
    public SessionPort port() {
        return session;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * KILL [CONNECTION] ended this session: its backend connections are closed (a statement in
     * flight was interrupted by the KILL first). {@code lastError} is sent before closing (a
     * session that killed itself hears 1927), or null. Call on the session's loop.
     */
    public void killConnection(ErrPacket lastError) {
        if (closed) {
            return;
        }
        if (lastError != null) {
            closeWith(session.frame(1, lastError::write));
        } else {
            close();
        }
    }

    @Override
    public void closeWith(ByteBuf lastPacket) {
        reset.abandon();
        closed = true;
        services.sessions().remove(connectionId);
        releaseWaiting();
        session.leases().discard();
        ctx.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void close() {
        closed = true;
        services.sessions().remove(connectionId);
        releaseWaiting();
        session.leases().close();
        ctx.close();
    }

    /** See {@link CommandWaiters#afterCutoverBarrier}; call on the session's loop. */
    void afterCutoverBarrier(Set<QualifiedTable> held, Runnable done) {
        waiters.afterCutoverBarrier(held, done);
    }

    private void releaseWaiting() {
        command.sessionClosed();
        waiters.commandMayHaveEnded();
        Packet p;
        while ((p = waiting.poll()) != null) {
            p.release();
        }
    }

    /** What the admin interface shows of this session; call on its event loop. */
    SessionInfo info() {
        SessionLeases leases = session.leases();
        Set<PinReason> pins = leases.pins();
        return new SessionInfo(
                connectionId,
                state.user().name(),
                state.desired().schema(),
                String.valueOf(ctx.channel().remoteAddress()),
                !pins.isEmpty(),
                pins.stream().map(PinReason::description).toList(),
                leases.held(),
                activity.command(),
                activity.seconds(),
                activity.info(),
                activity.serial(),
                running(leases));
    }

    private static List<BackendThread> running(SessionLeases leases) {
        List<BackendThread> out = new ArrayList<>(1);
        for (BackendLease lease : leases.all()) {
            BackendThread thread = lease.running();
            if (thread != null) {
                out.add(thread);
            }
        }
        return out;
    }

    /**
     * Whether command {@code commandSerial} of this session (see {@link SessionInfo}) is still in
     * flight on server thread {@code threadId} of {@code server}; call on its event loop.
     */
    public boolean stillRuns(long commandSerial, BackendAddress server, long threadId) {
        if (closed || activity.serial() != commandSerial) {
            return false;
        }
        return running(session.leases()).stream()
                .anyMatch(t -> t.threadId() == threadId && t.address().equals(server));
    }

    /** What this session buffers for its client right now; call on its event loop. */
    SessionBuffers buffers() {
        Channel client = ctx.channel();
        ChannelOutboundBuffer outbound = client.unsafe().outboundBuffer();
        BackendLease active = command.active();
        PooledConnection relaying = active != null ? active.current() : null;
        return new SessionBuffers(
                connectionId,
                outbound == null ? 0 : outbound.totalPendingWriteBytes(),
                client.config().isAutoRead(),
                waiting.size(),
                relaying == null ? null : relaying.channel().config().isAutoRead());
    }
}
