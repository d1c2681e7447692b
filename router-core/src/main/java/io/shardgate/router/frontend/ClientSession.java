package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.execute.PreparedStatementCommands;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;
import java.net.InetSocketAddress;
import java.nio.charset.Charset;
import java.util.List;
import java.util.function.Consumer;

/**
 * A client session as its executors see it ({@link SessionPort}): its state, its leases, its
 * statement text, answering the client (written from the session handler's context, so the result
 * cache's tap after it sees only relayed bytes), and the command in flight, which {@link
 * CommandInFlight} carries out. {@link FrontendSession} (handler, queue, lifecycle) creates one per
 * connection and attaches it to its channel context. Event-loop confined.
 */
final class ClientSession implements SessionPort {
    private final FrontendServices services;
    private final Capabilities capabilities;
    private final int connectionId;
    private final SessionState state;
    private final PreparedStatementCommands prepared;
    private final CommandInFlight command;
    private final SessionLeases leases;
    private final ClientText text;
    /** The COM_QUERY / COM_STMT_EXECUTE in flight, timed for the metrics. */
    private final StatementRecorder statement;

    private final SessionCache cache;
    private ChannelHandlerContext ctx;

    ClientSession(
            FrontendServices services,
            Capabilities capabilities,
            int connectionId,
            SessionState state,
            ConnectionKind kind,
            EventLoop loop,
            SessionLifecycle lifecycle) {
        this.services = services;
        this.capabilities = capabilities;
        this.connectionId = connectionId;
        this.state = state;
        this.prepared = new PreparedStatementCommands(this);
        this.command = new CommandInFlight(this, lifecycle, state, prepared);
        this.leases = new SessionLeases(services.hostgroups(), loop, kind, command, state.transaction());
        this.text = new ClientText(state, leases);
        this.cache = new SessionCache(this, services.cache());
        this.statement = new StatementRecorder(services.metrics());
    }

    /** The session's handler was added to the client pipeline: answers are written from {@code ctx}. */
    void attach(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        cache.install(ctx.pipeline());
    }

    CommandInFlight command() {
        return command;
    }

    PreparedStatementCommands prepared() {
        return prepared;
    }

    ClientText clientText() {
        return text;
    }

    @Override
    public FrontendServices services() {
        return services;
    }

    @Override
    public int connectionId() {
        return connectionId;
    }

    @Override
    public UserConfig user() {
        return state.user();
    }

    @Override
    public SessionVariables desired() {
        return state.desired();
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public Channel client() {
        return ctx.channel();
    }

    @Override
    public String remoteHost() {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getHostString() : "unknown";
    }

    @Override
    public SessionLeases leases() {
        return leases;
    }

    @Override
    public BackendLease home() {
        return leases.get(services.routing().current().homeOf(state.desired().schema()));
    }

    @Override
    public SessionTransaction transaction() {
        return state.transaction();
    }

    @Override
    public MovingTablesTouched movingTablesTouched() {
        return state.movingTablesTouched();
    }

    @Override
    public StatementRecorder statement() {
        return statement;
    }

    @Override
    public LastInsertId lastInsertId() {
        return state.lastInsertId();
    }

    @Override
    public void readLastInsertId(BackendLease holder, Runnable then, Runnable dropped) {
        command.readBeforeStatement(holder, then, dropped);
    }

    @Override
    public PreviousStatement previous() {
        return state.previous();
    }

    @Override
    public SessionCache cache() {
        return cache;
    }

    @Override
    public String text(ByteBuf payload) {
        return text.text(payload);
    }

    @Override
    public Charset textCharset() {
        return text.charset();
    }

    @Override
    public void write(ByteBuf frames) {
        ctx.writeAndFlush(frames, ctx.voidPromise());
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

    @Override
    public void replyRows(List<TextResultSet.Column> columns, List<List<Object>> rows) {
        ctx.writeAndFlush(
                TextResultSet.write(ctx.alloc(), capabilities, columns, rows, leases.statusFlags()), ctx.voidPromise());
    }

    @Override
    public void run(
            BackendLease lease,
            Packet packet,
            Response response,
            StatementEffects effects,
            boolean insert,
            boolean read) {
        command.run(lease, packet, response, effects, insert, read);
    }

    @Override
    public void withConnection(BackendLease lease, Packet packet, Consumer<PooledConnection> then, boolean retryable) {
        command.withConnection(lease, packet, then, retryable);
    }

    @Override
    public void send(
            PooledConnection connection, Packet packet, Response response, StatementEffects effects, boolean insert) {
        command.send(connection, packet, response, effects, insert);
    }

    @Override
    public void fail(ErrPacket error) {
        command.fail(error);
    }

    @Override
    public void diagnosticsEffect(DiagnosticsEffect effect) {
        command.diagnosticsEffect(effect);
    }

    @Override
    public void startRouted(Runnable abort, Runnable writable) {
        command.startRouted(abort, writable);
    }

    @Override
    public void routedLossNote(java.util.function.Supplier<String> note) {
        command.routedLossNote(note);
    }

    @Override
    public void waitsForMove() {
        command.waitsForMove(true);
    }

    @Override
    public void resumeRouted(Runnable routed) {
        command.resumeRouted(routed);
    }

    @Override
    public void finishRouted(ByteBuf response) {
        command.finishRouted(response);
    }
}
