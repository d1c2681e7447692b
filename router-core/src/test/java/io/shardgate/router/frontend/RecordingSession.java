package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A client session for tests of what talks to it through {@link SessionPort}: it holds real state
 * (no backend, no channel) and records each answer, run and lifecycle step as a line ("reply 1 ERR
 * 1047", "run COM_FIELD_LIST", "close"). What a test does not expect to be asked throws.
 */
final class RecordingSession implements SessionPort, SessionLifecycle {
    final List<String> calls = new ArrayList<>();
    private final FrontendServices services;
    private final SessionState state = new SessionState(null, "shop");
    private final SessionLeases leases;
    private final ClientText text;
    private final StatementRecorder statement;

    RecordingSession(FrontendServices services, int characterSet) {
        this.services = services;
        this.leases = new SessionLeases(
                null, null, new ConnectionKind(0, 0, characterSet, "shop"), null, state.transaction());
        this.text = new ClientText(state, leases);
        this.statement = new StatementRecorder(services.metrics());
    }

    SessionState state() {
        return state;
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
        return 7;
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
        throw new UnsupportedOperationException("capabilities");
    }

    @Override
    public Channel client() {
        throw new UnsupportedOperationException("client");
    }

    @Override
    public String remoteHost() {
        return "127.0.0.1";
    }

    @Override
    public SessionLeases leases() {
        return leases;
    }

    @Override
    public BackendLease home() {
        throw new UnsupportedOperationException("home");
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
        throw new UnsupportedOperationException("readLastInsertId");
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
    public PreviousStatement previous() {
        return state.previous();
    }

    @Override
    public SessionCache cache() {
        throw new UnsupportedOperationException("cache");
    }

    @Override
    public void run(
            BackendLease lease,
            Packet packet,
            Response response,
            StatementEffects effects,
            boolean insert,
            boolean read) {
        calls.add("run " + response);
        packet.release();
    }

    @Override
    public void withConnection(BackendLease lease, Packet packet, Consumer<PooledConnection> then, boolean retryable) {
        throw new UnsupportedOperationException("withConnection");
    }

    @Override
    public void send(
            PooledConnection connection, Packet packet, Response response, StatementEffects effects, boolean insert) {
        throw new UnsupportedOperationException("send");
    }

    @Override
    public void fail(ErrPacket error) {
        calls.add("fail " + error.code());
    }

    @Override
    public void startRouted(Runnable abort, Runnable writable) {
        calls.add("startRouted");
    }

    @Override
    public void routedLossNote(java.util.function.Supplier<String> note) {
        calls.add("routedLossNote");
    }

    @Override
    public void waitsForMove() {
        calls.add("waitsForMove");
    }

    @Override
    public void resumeRouted(Runnable command) {
        throw new UnsupportedOperationException("resumeRouted");
    }

    @Override
    public void writeRouted(ByteBuf frames) {
        frames.release();
        throw new UnsupportedOperationException("writeRouted");
    }

    @Override
    public void finishRouted(ByteBuf response) {
        response.release();
        calls.add("finishRouted");
    }

    @Override
    public void write(ByteBuf frames) {
        frames.release();
        calls.add("write");
    }

    @Override
    public ByteBuf frame(int sequenceId, Consumer<ByteBuf> payload) {
        throw new UnsupportedOperationException("frame");
    }

    @Override
    public void reply(int sequenceId, OkPacket ok) {
        calls.add("reply " + sequenceId + " OK status " + ok.statusFlags());
    }

    @Override
    public void diagnosticsEffect(DiagnosticsEffect effect) {
        calls.add("diagnosticsEffect " + effect);
    }

    @Override
    public void reply(int sequenceId, ErrPacket error) {
        calls.add("reply " + sequenceId + " ERR " + error.code() + " " + error.message());
    }

    @Override
    public void replyRows(List<TextResultSet.Column> columns, List<List<Object>> rows) {
        calls.add("replyRows " + rows);
    }

    @Override
    public boolean isClosed() {
        return false;
    }

    @Override
    public void drain() {
        calls.add("drain");
    }

    @Override
    public void closeWith(ByteBuf lastPacket) {
        lastPacket.release();
        calls.add("closeWith");
    }

    @Override
    public void close() {
        calls.add("close");
    }
}
