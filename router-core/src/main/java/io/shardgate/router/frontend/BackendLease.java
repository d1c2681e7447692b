package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.backend.BackendException;
import io.shardgate.router.backend.RelayTarget;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PoolPartition;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.BackendServer;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.SessionVariables;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A client session's use of backend connections (multiplexing): borrows one from the pool for a
 * statement, brings its server session to the client's state (schema, replayed SET assignments),
 * and gives it back when the statement is done — unless the session is pinned.
 *
 * <p>Pins are either sticky (state only that server session has: user variables, locks,
 * temporary tables, prepared statements... until COM_RESET_CONNECTION or COM_CHANGE_USER) or
 * follow the server's status flags (an open transaction, autocommit off, an open cursor). A
 * connection whose state is unknown (lost mid-response, a failed alignment) is closed, never
 * returned. Runs on the session's event loop.
 */
final class BackendLease implements RelayTarget {
    /**
     * After an INSERT the connection stays for the next statements or until the session has been
     * quiet this long, so a LAST_INSERT_ID() right after it reads the right server session (as
     * ProxySQL's auto_increment_delay_multiplex does); drivers that take the id from the OK packet
     * do not need it.
     */
    static final int INSERT_ID_HOLD = 5;

    static final long INSERT_ID_HOLD_MILLIS = 1000;

    private final Hostgroup hostgroup;
    /** True for the lease that runs reads on the hostgroup's readers; false for its writer's. */
    private final boolean reads;

    private final EventLoop loop;
    private final LeaseOwner owner;
    private final EnumSet<PinReason> pins = EnumSet.noneOf(PinReason.class);
    private ConnectionKind kind;
    private PooledConnection current;
    /** The connection returned last; asked for first next time (affinity). */
    private PooledConnection previous;

    private int statusFlags = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private int insertIdHold;
    /** Changes whenever the connection may have seen what the session's own statements did not (see {@link #epoch}). */
    private long epoch;
    /**
     * The last statement left warnings or an error in this connection's diagnostics area: the
     * connection stays until the next statement, so SHOW WARNINGS reads them (see {@link
     * DiagnosticsHold}).
     */
    private boolean diagnosticsHold;
    /** Counts statements, so a hold timer knows whether the session moved on meanwhile. */
    private long statements;
    /** Receives the response of the internal command in flight. */
    private BiConsumer<ByteBuf, Boolean> internal;
    /** Receives the bytes of a streamed internal response as they arrive (ownership passes). */
    private Consumer<ByteBuf> chunks;

    /** When the last write through this lease ended (System.nanoTime), for read-your-writes. */
    private long lastWriteNanos;

    private boolean writing;

    BackendLease(Hostgroup hostgroup, boolean reads, EventLoop loop, ConnectionKind kind, LeaseOwner owner) {
        this.hostgroup = hostgroup;
        this.reads = reads;
        this.loop = loop;
        this.kind = kind;
        this.owner = owner;
        if (!hostgroup.config().pool().multiplexing()) {
            pins.add(PinReason.MULTIPLEXING_OFF);
        }
    }

    /** The hostgroup this lease borrows from. */
    Hostgroup hostgroup() {
        return hostgroup;
    }

    /** True for a reader lease (reads outside transactions), false for the writer's. */
    boolean reads() {
        return reads;
    }

    /** The statement about to run changes data: its end starts the read-your-writes window. */
    void writing() {
        writing = true;
        lastWriteNanos = System.nanoTime();
    }

    /** True while the statement in flight changes data (see {@link #writing()}). */
    boolean writingStatement() {
        return writing;
    }

    /** True when the session wrote through this lease less than {@code millis} ago. */
    boolean wroteWithin(long millis, long now) {
        return lastWriteNanos != 0 && now - lastWriteNanos < TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** True when the connection held (if any) has a transaction open or autocommit off. */
    boolean inTransaction() {
        return current != null
                && ((statusFlags & ServerStatus.SERVER_STATUS_IN_TRANS) != 0
                        || (statusFlags & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0);
    }

    @Override
    public Channel client() {
        return owner.client();
    }

    @Override
    public void responsesComplete(int count, int statusFlags, boolean lastWasError) {
        owner.responsesComplete(this, statusFlags, lastWasError);
    }

    @Override
    public void internalResponse(ByteBuf response, boolean error) {
        onInternalResponse(response, error);
    }

    @Override
    public void internalChunk(ByteBuf chunk) {
        Consumer<ByteBuf> to = chunks;
        if (to == null) {
            chunk.release();
        } else {
            to.accept(chunk);
        }
    }

    @Override
    public void localInfileRequested() {
        owner.localInfileRequested();
    }

    @Override
    public void prepareOk(ByteBuf in, int payload) {
        owner.prepareOk(this, in, payload);
    }

    @Override
    public void backendLost(String reason, boolean midPacket, int nextSequenceId) {
        owner.backendLost(this, reason, midPacket, nextSequenceId);
    }

    @Override
    public void queryTimedOut(String reason, boolean midPacket, int nextSequenceId) {
        owner.queryTimedOut(this, reason, midPacket, nextSequenceId);
    }

    /** The connection held right now, or null. */
    PooledConnection current() {
        return current;
    }

    /**
     * A number that changes each time the lease takes a connection from the pool and each time it
     * sends a statement of the router's own (alignment, BEGIN, a diagnostics check): the same
     * number at two moments means the server session has seen nothing but the client's commands
     * in between.
     */
    long epoch() {
        return epoch;
    }

    /** True when something keeps the connection; the allocation-free form of {@code !pins().isEmpty()}. */
    boolean pinned() {
        return !pins.isEmpty()
                || insertIdHold > 0
                || diagnosticsHold
                || (statusFlags & ServerStatus.SERVER_STATUS_IN_TRANS) != 0
                || (statusFlags & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0;
    }

    /**
     * True when the connection holds session state that dies with it (a transaction, variables,
     * locks...): {@link #pinned()} without the diagnostics hold, whose loss only loses warnings.
     */
    boolean holdsSessionState() {
        return !pins.isEmpty()
                || insertIdHold > 0
                || (statusFlags & ServerStatus.SERVER_STATUS_IN_TRANS) != 0
                || (statusFlags & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0;
    }

    /** Why the session holds its connection (for diagnosis); empty when it returns it after each statement. */
    Set<PinReason> pins() {
        EnumSet<PinReason> all = pins.clone();
        if ((statusFlags & ServerStatus.SERVER_STATUS_IN_TRANS) != 0) {
            all.add(PinReason.TRANSACTION);
        }
        if ((statusFlags & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0) {
            all.add(PinReason.AUTOCOMMIT_OFF);
        }
        if (insertIdHold > 0) {
            all.add(PinReason.LAST_INSERT_ID);
        }
        if (diagnosticsHold) {
            all.add(PinReason.DIAGNOSTICS);
        }
        return all;
    }

    void pin(Set<PinReason> reasons) {
        pins.addAll(reasons);
    }

    void unpin(PinReason reason) {
        pins.remove(reason);
    }

    /** COM_RESET_CONNECTION or COM_CHANGE_USER: the server session starts over. */
    void clearStickyPins() {
        boolean off = pins.contains(PinReason.MULTIPLEXING_OFF);
        pins.clear();
        if (off) {
            pins.add(PinReason.MULTIPLEXING_OFF);
        }
        insertIdHold = 0;
        diagnosticsHold = false;
    }

    /** True while the connection keeps the session's last statement's warnings or error. */
    boolean holdsDiagnostics() {
        return diagnosticsHold;
    }

    /** Another lease ran the session's latest statement: these diagnostics are no longer the session's. */
    void endDiagnosticsHold() {
        if (diagnosticsHold) {
            diagnosticsHold = false;
            if (current != null) {
                current.relay().diagnosticsDirty(true); // still in that server session
            }
            releaseIfFree();
        }
    }

    /**
     * Asks the held connection how many conditions its diagnostics area holds ({@link
     * DiagnosticsHold#COUNT}); {@code then} hears the count (1 when the question failed: hold on).
     */
    void countWarnings(IntConsumer then) {
        runInternal(
                out -> query(out, DiagnosticsHold.COUNT),
                Response.RESULT_SET,
                (response, failed) -> then.accept(failed ? 1 : DiagnosticsHold.count(response)));
    }

    void kind(ConnectionKind kind) {
        this.kind = kind;
    }

    /** Server status flags of the last response (autocommit, transaction, cursor). */
    int statusFlags() {
        return statusFlags;
    }

    /**
     * Gets a connection whose server session matches {@code desired}, then calls {@code then} with
     * it, or with the error to answer the client (pool timeout, backend down, failed alignment).
     */
    void acquire(SessionVariables desired, BiConsumer<PooledConnection, ErrPacket> then) {
        acquire(desired, null, then);
    }

    /**
     * As {@link #acquire(SessionVariables, BiConsumer)}, and when {@code begin} is not null and
     * the connection has no transaction open, runs {@code begin} (the session's START TRANSACTION
     * and its savepoints) first: the session's transaction reaches this hostgroup when a statement
     * does.
     */
    void acquire(SessionVariables desired, List<String> begin, BiConsumer<PooledConnection, ErrPacket> then) {
        BiConsumer<PooledConnection, ErrPacket> next = begin == null
                ? then
                : (connection, error) -> {
                    if (error != null || (statusFlags & ServerStatus.SERVER_STATUS_IN_TRANS) != 0) {
                        then.accept(connection, error);
                        return;
                    }
                    runSteps(begin, 0, then);
                };
        if (current != null) {
            align(desired, next);
            return;
        }
        borrow(server(null), desired, next, true);
    }

    /** Runs {@code steps} from {@code index} on, one after the other; the first failure ends them. */
    private void runSteps(List<String> steps, int index, BiConsumer<PooledConnection, ErrPacket> then) {
        runStatement(steps.get(index), failure -> {
            if (failure != null) {
                releaseIfFree();
                then.accept(null, failure);
            } else if (index + 1 < steps.size()) {
                runSteps(steps, index + 1, then);
            } else {
                then.accept(current, null);
            }
        });
    }

    /** The server for a new borrow: the writer, or for a read a reader by weight (the writer if none). */
    private BackendServer server(BackendServer failed) {
        if (reads) {
            BackendServer reader = hostgroup.pickReader(failed);
            if (reader != null) {
                return reader;
            }
        }
        return hostgroup.writer();
    }

    private void borrow(
            BackendServer server,
            SessionVariables desired,
            BiConsumer<PooledConnection, ErrPacket> then,
            boolean retry) {
        PoolPartition partition = server.pool().partition(loop);
        Future<PooledConnection> borrow = partition.acquire(
                kind.withSchema(desired.schema()),
                previous != null && previous.partition() == partition ? previous : null);
        previous = null;
        if (borrow.isDone()) {
            onBorrowed(borrow, server, desired, then, retry);
        } else {
            borrow.addListener(f -> onBorrowed(borrow, server, desired, then, retry));
        }
    }

    private void onBorrowed(
            Future<PooledConnection> borrow,
            BackendServer server,
            SessionVariables desired,
            BiConsumer<PooledConnection, ErrPacket> then,
            boolean retry) {
        if (!borrow.isSuccess()) {
            Throwable cause = borrow.cause();
            ErrPacket error = cause instanceof BackendException be
                    ? be.error()
                    : Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "no backend connection: " + cause);
            if (retry
                    && error.code() != PoolPartition.ER_MAX_CONNECT_TIMEOUT
                    && error.code() != PoolPartition.ER_SERVER_SHUTDOWN
                    && owner.client().isActive()) {
                // nothing reached a server yet: try once more, elsewhere when there is an elsewhere
                borrow(server(server), desired, then, false);
            } else {
                then.accept(null, error);
            }
            return;
        }
        PooledConnection c = borrow.getNow();
        if (!c.channel().isActive()) {
            // died between the pool's check and now: nothing was sent on it, so take another
            c.partition().discard(c);
            if (retry) {
                borrow(server(server), desired, then, false);
            } else {
                then.accept(null, new ErrPacket(2013, "08S01", "Lost connection to backend " + server.address()));
            }
            return;
        }
        current = c;
        epoch++;
        current.relay().target(this);
        align(desired, then);
    }

    /** Sends what the connection's server session lacks: a reset if needed, the schema, SETs. */
    private void align(SessionVariables desired, BiConsumer<PooledConnection, ErrPacket> then) {
        SessionVariables actual = current.state();
        boolean clear = current.relay().diagnosticsDirty();
        if (actual == desired && !clear) {
            // the common case: the connection last ran this session in this state (set below)
            then.accept(current, null);
            return;
        }
        ArrayDeque<Consumer<ByteBuf>> steps = new ArrayDeque<>();
        if (clear) {
            // another session's warnings would pass for this one's (see DiagnosticsHold)
            current.relay().diagnosticsDirty(false);
            steps.add(out -> query(out, DiagnosticsHold.CLEAR));
        }
        List<String> missing = desired.missingFrom(actual);
        boolean reset = missing == null;
        if (reset) {
            current.forgetStatements(); // the reset deallocates them
            steps.add(out -> out.writeByte(Command.COM_RESET_CONNECTION.code()));
            missing = List.copyOf(desired.fragments().values());
        }
        if (desired.schema() != null && (!desired.schema().equals(actual.schema()) || reset)) {
            steps.add(out -> out.writeByte(Command.COM_INIT_DB.code())
                    .writeCharSequence(desired.schema(), StandardCharsets.UTF_8));
        }
        StringBuilder assignments = new StringBuilder();
        for (String fragment : missing) {
            if (fragment.regionMatches(true, 0, "SESSION TRANSACTION", 0, 19)) {
                String sql = "SET " + fragment; // cannot share a SET with other assignments
                steps.add(out -> query(out, sql));
            } else {
                assignments.append(assignments.length() == 0 ? "SET " : ", ").append(fragment);
            }
        }
        if (assignments.length() > 0) {
            String sql = assignments.toString();
            steps.add(out -> query(out, sql));
        }
        runSteps(steps, desired, then);
    }

    private static void query(ByteBuf out, String sql) {
        out.writeByte(Command.COM_QUERY.code()).writeCharSequence(sql, StandardCharsets.UTF_8);
    }

    private void runSteps(
            ArrayDeque<Consumer<ByteBuf>> steps,
            SessionVariables desired,
            BiConsumer<PooledConnection, ErrPacket> then) {
        Consumer<ByteBuf> step = steps.poll();
        if (step == null) {
            current.state(desired);
            then.accept(current, null);
            return;
        }
        internal = (response, error) -> {
            internal = null;
            if (error) {
                // the server session is now half-aligned: never reuse it
                ErrPacket err = ErrPacket.read(response.skipBytes(4));
                discard();
                then.accept(null, err);
            } else {
                runSteps(steps, desired, then);
            }
        };
        current.relay().expectInternal(Response.SINGLE, current.channel());
        epoch++;
        current.channel().writeAndFlush(PacketWriter.frame(current.channel().alloc(), 0, 64, step));
    }

    /** True while a command of the router's own (alignment, BEGIN, a merge's query) awaits its response. */
    boolean internalPending() {
        return internal != null;
    }

    /** Routes an internal command's response; true if it was one of the lease's. */
    boolean onInternalResponse(ByteBuf response, boolean error) {
        if (internal == null) {
            return false;
        }
        internal.accept(response, error);
        return true;
    }

    /**
     * Runs one statement of the router's own (a SAVEPOINT, a COMMIT) on the held connection;
     * {@code then} hears its ERR, or null. The lease takes the server's status flags from its answer.
     */
    void runStatement(String sql, Consumer<ErrPacket> then) {
        runInternal(out -> query(out, sql), Response.SINGLE, (response, failed) -> {
            if (current != null) {
                statusFlags = current.relay().statusFlags();
            }
            then.accept(failed ? ErrPacket.read(response.skipBytes(4)) : null);
        });
    }

    /** Runs one internal command on the held connection; its framed response goes to {@code onResponse}. */
    void runInternal(Consumer<ByteBuf> command, Response response, BiConsumer<ByteBuf, Boolean> onResponse) {
        internal = (bytes, error) -> {
            internal = null;
            onResponse.accept(bytes, error);
        };
        current.relay().expectInternal(response, current.channel());
        epoch++;
        current.channel().writeAndFlush(PacketWriter.frame(current.channel().alloc(), 0, 64, command));
    }

    /**
     * Runs one internal command whose response is streamed: its framed bytes go to {@code chunks}
     * as they arrive (each chunk owned by the consumer), then {@code onEnd} hears whether it ended
     * in an ERR. Reading pauses while the connection's channel has autoRead off.
     */
    void streamInternal(
            Consumer<ByteBuf> command, Response response, Consumer<ByteBuf> chunks, Consumer<Boolean> onEnd) {
        this.chunks = chunks;
        internal = (bytes, error) -> {
            internal = null;
            this.chunks = null;
            onEnd.accept(error);
        };
        current.relay().expectInternalStream(response);
        epoch++;
        current.channel().writeAndFlush(PacketWriter.frame(current.channel().alloc(), 0, 64, command));
    }

    /**
     * A statement's response ended: remembers the status, and returns the connection to the pool
     * when nothing pins the session.
     */
    void afterResponse(int status, boolean insert) {
        afterResponse(status, insert, false);
    }

    /** As {@link #afterResponse(int, boolean)}; {@code diagnostics}: see {@link DiagnosticsHold#after}. */
    void afterResponse(int status, boolean insert, boolean diagnostics) {
        diagnosticsHold = diagnostics && current != null;
        statusFlags = status;
        if (writing) {
            writing = false;
            lastWriteNanos = System.nanoTime();
        }
        statements++;
        if (insert) {
            insertIdHold = INSERT_ID_HOLD;
        } else if (insertIdHold > 0) {
            insertIdHold--;
        }
        releaseIfFree();
        if (current != null && insertIdHold > 0) {
            long seen = statements;
            current.channel()
                    .eventLoop()
                    .schedule(() -> endInsertIdHold(seen), INSERT_ID_HOLD_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** The hold timer: a session quiet since statement {@code seen} lets its connection go. */
    private void endInsertIdHold(long seen) {
        if (statements == seen && insertIdHold > 0 && internal == null) {
            insertIdHold = 0;
            releaseIfFree();
        }
    }

    /** Returns the connection if nothing pins the session and no response is outstanding. */
    void releaseIfFree() {
        if (current != null
                && current.relay().idle()
                && (statusFlags & ServerStatus.SERVER_STATUS_CURSOR_EXISTS) == 0
                && !pinned()) {
            PooledConnection c = current;
            if (c.relay().raisedDiagnostics()) {
                c.relay().diagnosticsDirty(true); // e.g. one shard's warnings of a merged statement
            }
            current = null;
            previous = c;
            c.partition().release(c);
        }
    }

    /**
     * The connection running a command of this session right now (a response or an internal step
     * outstanding), marked so the pool never takes it back (see {@link
     * PooledConnection#markKillTarget}); null when none is running. Call on the session's loop:
     * there the lease also decides to give the connection back, so the mark comes first.
     */
    PooledConnection killTarget() {
        if (current == null || current.relay().idle()) {
            return null;
        }
        current.markKillTarget();
        return current;
    }

    /** Closes the held connection: its server session is lost or must not be reused. */
    void discard() {
        diagnosticsHold = false;
        if (current != null) {
            PooledConnection c = current;
            current = null;
            c.partition().discard(c);
        }
        internal = null;
        chunks = null;
    }

    /** The client left: a clean connection goes back, one in the middle of anything is closed. */
    void close() {
        if (current == null) {
            return;
        }
        boolean clean = current.relay().idle()
                && internal == null
                && (statusFlags & (ServerStatus.SERVER_STATUS_IN_TRANS | ServerStatus.SERVER_STATUS_CURSOR_EXISTS)) == 0
                && (statusFlags & ServerStatus.SERVER_STATUS_AUTOCOMMIT) != 0
                && pins.stream().allMatch(p -> p == PinReason.MULTIPLEXING_OFF);
        if (clean) {
            PooledConnection c = current;
            if (diagnosticsHold || c.relay().raisedDiagnostics()) {
                c.relay().diagnosticsDirty(true);
            }
            diagnosticsHold = false;
            current = null;
            c.partition().release(c);
        } else {
            discard();
        }
    }
}
