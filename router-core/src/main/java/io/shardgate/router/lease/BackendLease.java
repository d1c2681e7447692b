package io.shardgate.router.lease;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.backend.BackendThread;
import io.shardgate.router.backend.RelayTarget;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.SessionVariables;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A client session's use of backend connections (multiplexing): borrows one from the pool for a
 * statement, brings its server session to the client's state ({@link SessionAlignment}), and gives
 * it back when the statement is done — unless something pins the session ({@link LeasePins}), or
 * a cursor is open. A connection whose state is unknown (lost mid-response, a failed alignment) is
 * closed, never returned. It also runs the router's own commands on the connection (alignment,
 * BEGIN, SAVEPOINT, a diagnostics count, a merge's query) and keeps their responses from the
 * client.
 *
 * <p>It is the relay's {@link RelayTarget}, the one interface between the backend relay and the
 * frontend: the internal responses it keeps, the client-facing events it passes to the session's
 * {@link LeaseOwner} (the command in flight), naming itself. Runs on the session's event loop.
 */
public final class BackendLease implements RelayTarget {
    /** After an INSERT the connection also goes back once the session has been quiet this long. */
    static final long INSERT_ID_HOLD_MILLIS = 1000;
    /**
     * ER_PARSE_ERROR as a server answers a multi-statement query while multi-statements are off
     * (recognised in the server's answer, never sent to a client by the router).
     */
    private static final int SERVER_PARSE_ERROR = 1064;
    /** Reads a server session's LAST_INSERT_ID() (no table: the diagnostics area stays). */
    private static final String READ_LAST_INSERT_ID = "SELECT LAST_INSERT_ID()";

    private final Hostgroup hostgroup;
    /** True for the lease that runs reads on the hostgroup's readers; false for its writer's. */
    private final boolean reads;

    private final LeaseOwner owner;
    private final LeasePins pins;
    private final WriteClock writes = new WriteClock(System::nanoTime);
    private ConnectionKind kind;
    private PooledConnection current;
    private final HostgroupBorrow borrower;

    private int statusFlags = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    /** Connections taken from the pool so far: part of the {@link #epoch}. */
    private long borrows;
    /** The statement in flight may set LAST_INSERT_ID() (see {@link #settingLastInsertId()}). */
    private boolean settingLastInsertId;
    /** Counts statements, so a hold timer knows whether the session moved on meanwhile. */
    private long statements;

    private final InternalCommands internal = new InternalCommands();
    /** Runs if the connection goes while {@link #readLastInsertId} waits for its answer; null otherwise. */
    private Runnable readAborted;
    /**
     * Nothing but the client session's LAST_INSERT_ID() keeps the connection: it goes back once the
     * value is read, which waits for the session's next statement (or a quiet {@link
     * #INSERT_ID_HOLD_MILLIS}): a read right away would reset the server session's
     * Last_query_cost, which that statement may show ({@code SHOW STATUS}, mtr's main.key).
     */
    private boolean readDeferred;

    public BackendLease(Hostgroup hostgroup, boolean reads, EventLoop loop, ConnectionKind kind, LeaseOwner owner) {
        this.hostgroup = hostgroup;
        this.reads = reads;
        this.kind = kind;
        this.owner = owner;
        this.borrower = new HostgroupBorrow(hostgroup, reads, loop);
        this.pins = new LeasePins(hostgroup.config().pool().multiplexing());
    }

    /** The hostgroup this lease borrows from. */
    public Hostgroup hostgroup() {
        return hostgroup;
    }

    /** True for a reader lease (reads outside transactions), false for the writer's. */
    public boolean reads() {
        return reads;
    }

    /** The statement about to run changes data: its end starts the read-your-writes window. */
    public void writing() {
        writes.writing();
    }

    /** True while the statement in flight changes data (see {@link #writing()}). */
    public boolean writingStatement() {
        return writes.writingStatement();
    }

    /** True when the session wrote through this lease less than {@code millis} ago. */
    public boolean wroteWithin(long millis, long now) {
        return writes.wroteWithin(millis, now);
    }

    /** True when the connection held (if any) has a transaction open or autocommit off. */
    public boolean inTransaction() {
        return current != null && LeasePins.inTransaction(statusFlags);
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
        internal.chunk(chunk);
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
    public PooledConnection current() {
        return current;
    }

    /**
     * A number that changes each time the lease takes a connection from the pool and each time it
     * sends a statement of the router's own (alignment, BEGIN, a diagnostics check): the same
     * number at two moments means the server session has seen nothing but the client's commands
     * in between.
     */
    public long epoch() {
        return borrows + internal.sent(); // both only grow: the sum changes whenever either does
    }

    /** True when something keeps the connection (see {@link LeasePins#pinned}). */
    boolean pinned() {
        return pins.pinned(statusFlags) || readWaits();
    }

    /** True while the connection waits for the read of the session's LAST_INSERT_ID() (see {@link #readDeferred}). */
    public boolean readWaits() {
        return readDeferred && current != null && owner.lastInsertId().holder() == this;
    }

    /** True when the connection holds session state that dies with it (see {@link LeasePins#holdsSessionState}). */
    public boolean holdsSessionState() {
        return pins.holdsSessionState(statusFlags) || readWaits();
    }

    /** Why the session holds its connection (for diagnosis); empty when it returns it after each statement. */
    public Set<PinReason> pins() {
        return pins.reasons(statusFlags);
    }

    public void pin(Set<PinReason> reasons) {
        pins.pin(reasons);
    }

    public void unpin(PinReason reason) {
        pins.unpin(reason);
    }

    /** COM_RESET_CONNECTION or COM_CHANGE_USER: the server session starts over. */
    public void clearStickyPins() {
        pins.clearSticky();
    }

    /** True while the connection keeps the session's last statement's warnings or error. */
    public boolean holdsDiagnostics() {
        return pins.holdsDiagnostics();
    }

    /** Another lease ran the session's latest statement: these diagnostics are no longer the session's. */
    public void endDiagnosticsHold() {
        if (pins.holdsDiagnostics()) {
            pins.holdDiagnostics(false);
            if (current != null) {
                current.relay().diagnosticsDirty(true); // still in that server session
            }
            releaseIfFree();
        }
    }

    /**
     * Asks the held connection whether its diagnostics area holds conditions ({@link
     * DiagnosticsHold#check}); {@code then} hears a count, 0 for none (1 when the question failed: hold on).
     */
    public void countWarnings(IntConsumer then) {
        String check = DiagnosticsHold.check(current.state().fragments());
        runInternal(
                out -> query(out, check),
                Response.RESULT_SET,
                (response, failed) -> then.accept(failed ? 1 : DiagnosticsHold.conditions(check, response)));
    }

    public void kind(ConnectionKind kind) {
        this.kind = kind;
    }

    /** Server status flags of the last response (autocommit, transaction, cursor). */
    public int statusFlags() {
        return statusFlags;
    }

    /**
     * Gets a connection whose server session matches {@code desired}, then calls {@code then} with
     * it, or with the error to answer the client (pool timeout, backend down, failed alignment).
     */
    public void acquire(SessionVariables desired, BiConsumer<PooledConnection, ErrPacket> then) {
        acquire(desired, null, then);
    }

    /**
     * As {@link #acquire(SessionVariables, BiConsumer)}, and when {@code begin} is not null and
     * the connection has no transaction open, runs {@code begin} (the session's START TRANSACTION
     * and its savepoints) first: the session's transaction reaches this hostgroup when a statement
     * does.
     */
    public void acquire(SessionVariables desired, List<String> begin, BiConsumer<PooledConnection, ErrPacket> then) {
        BiConsumer<PooledConnection, ErrPacket> next = begin == null
                ? then
                : (connection, error) -> {
                    if (error != null || transactionOpen()) {
                        then.accept(connection, error);
                        return;
                    }
                    runSteps(begin, 0, then);
                };
        if (current != null) {
            // the session's own connection: what it holds of the session must survive the alignment
            align(desired, pins.holdsSessionState(statusFlags), next);
            return;
        }
        borrow(desired, next);
    }

    /** True when the held connection's server session has a transaction open. */
    public boolean transactionOpen() {
        return current != null && (statusFlags & ServerStatus.SERVER_STATUS_IN_TRANS) != 0;
    }

    /**
     * Writes {@code begin} (a BEGIN that cannot fail here, see {@code BeginAhead}) on the held
     * connection without flushing: the caller writes the transaction's first statement next, and
     * both go in one round trip; the BEGIN's OK is consumed here, the statement's response relayed.
     * Should the BEGIN fail all the same, the connection is given up and the client hears it lost:
     * the statement behind it may have run outside the transaction, which must not pass for a
     * statement of it.
     */
    public void beginAhead(String begin) {
        PooledConnection connection = current;
        internal.sendAhead(connection, out -> query(out, begin), Response.SINGLE, (response, failed) -> {
            if (current != null) {
                statusFlags = current.relay().statusFlags();
            }
            if (failed) {
                ErrPacket err = ErrPacket.read(response.skipBytes(4));
                connection
                        .relay()
                        .abort("the transaction's " + begin + " failed (" + err.code() + ": " + err.message()
                                + "); the statement sent with it may have run outside the transaction");
            }
        });
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

    /** Borrows a connection and aligns it to {@code desired}. */
    private void borrow(SessionVariables desired, BiConsumer<PooledConnection, ErrPacket> then) {
        borrower.borrow(kind.withSchema(desired.schema()), owner.client(), (c, error) -> {
            if (error != null) {
                then.accept(null, error);
                return;
            }
            current = c;
            borrows++;
            current.relay().target(this);
            align(desired, false, then);
        });
    }

    /** Sends what the connection's server session lacks (see {@link SessionAlignment}). */
    private void align(SessionVariables desired, boolean keepSession, BiConsumer<PooledConnection, ErrPacket> then) {
        boolean clear = current.relay().diagnosticsDirty();
        long lastInsertId = lastInsertIdToGive();
        if (current.state() == desired && !clear && lastInsertId == SessionAlignment.KEEP_LAST_INSERT_ID) {
            // the common case: the connection last ran this session in this state (set below)
            then.accept(current, null);
            return;
        }
        SessionAlignment alignment = SessionAlignment.of(current.state(), desired, clear, lastInsertId, keepSession);
        if (alignment == null) {
            then.accept(
                    null,
                    Errors.notSupported("a session variable changed back to its default while hostgroup "
                            + hostgroup().id()
                            + "'s connection holds this session's transaction or other state (a reset"
                            + " would end it): SET it to a value, or COMMIT / ROLLBACK first"));
            return;
        }
        if (clear) {
            current.relay().diagnosticsDirty(false);
        }
        if (alignment.reset()) {
            current.forgetStatements(); // the reset deallocates them
            current.lastInsertId(0);
        }
        if (lastInsertId != SessionAlignment.KEEP_LAST_INSERT_ID) {
            current.lastInsertId(lastInsertId); // set by the steps (a failed step closes the connection)
        }
        runSteps(new ArrayDeque<>(alignment.steps()), desired, then);
    }

    /**
     * The client session's LAST_INSERT_ID() to give the connection before the statement, or {@link
     * SessionAlignment#KEEP_LAST_INSERT_ID}: nothing to give when this connection holds the session's
     * own, already holds the value, or the statement cannot read or keep it ({@link LastInsertId#mayObserve}).
     */
    private long lastInsertIdToGive() {
        LastInsertId id = owner.lastInsertId();
        if (id.holder() == this) {
            return SessionAlignment.KEEP_LAST_INSERT_ID;
        }
        long wanted = id.wanted();
        return current.holdsLastInsertId(wanted) || !LastInsertId.mayObserve(owner.statementDigest())
                ? SessionAlignment.KEEP_LAST_INSERT_ID
                : wanted;
    }

    private static void query(ByteBuf out, String sql) {
        SessionAlignment.Step.query(sql).write(out);
    }

    private void runSteps(
            ArrayDeque<SessionAlignment.Step> steps,
            SessionVariables desired,
            BiConsumer<PooledConnection, ErrPacket> then) {
        SessionAlignment.Step step = steps.poll();
        if (step == null) {
            current.state(desired);
            then.accept(current, null);
            return;
        }
        internal.send(current, step::write, Response.SINGLE, (response, error) -> {
            if (error) {
                // the server session is now half-aligned: never reuse it
                ErrPacket err = ErrPacket.read(response.skipBytes(4));
                discard();
                then.accept(null, err);
            } else {
                runSteps(steps, desired, then);
            }
        });
    }

    /** True while a command of the router's own (alignment, BEGIN, a merge's query) awaits its response. */
    public boolean internalPending() {
        return internal.pending();
    }

    /** Routes an internal command's response; true if it was one of the lease's. */
    boolean onInternalResponse(ByteBuf response, boolean error) {
        return internal.response(response, error);
    }

    /**
     * Runs one statement of the router's own (a SAVEPOINT, a COMMIT) on the held connection;
     * {@code then} hears its ERR, or null. The lease takes the server's status flags from its answer.
     */
    public void runStatement(String sql, Consumer<ErrPacket> then) {
        runInternal(out -> query(out, sql), Response.SINGLE, (response, failed) -> {
            if (current != null) {
                statusFlags = current.relay().statusFlags();
            }
            then.accept(failed ? ErrPacket.read(response.skipBytes(4)) : null);
        });
    }

    /**
     * Runs {@code statements} of the router's own as one multi-statement query: one round trip
     * instead of one each. The server stops at the first error, which {@code then} hears (the
     * statements before it ran, those after it did not), or null. A server session whose client
     * switched multi-statements off (COM_SET_OPTION) parses none of it and answers ER_PARSE_ERROR:
     * then they run one by one.
     */
    public void runStatements(List<String> statements, Consumer<ErrPacket> then) {
        runInternal(out -> query(out, String.join("; ", statements)), Response.RESULT_SET, (response, failed) -> {
            if (current != null) {
                statusFlags = current.relay().statusFlags();
            }
            ErrPacket error = failed ? lastErr(response) : null;
            if (error != null && error.code() == SERVER_PARSE_ERROR && current != null) {
                runOneByOne(statements, then);
                return;
            }
            then.accept(error);
        });
    }

    private void runOneByOne(List<String> statements, Consumer<ErrPacket> then) {
        runStatement(statements.get(0), failure -> {
            if (failure != null || statements.size() == 1 || current == null) {
                then.accept(failure);
            } else {
                runOneByOne(statements.subList(1, statements.size()), then);
            }
        });
    }

    /** The ERR that ended a framed response of several results: its last packet. */
    static ErrPacket lastErr(ByteBuf response) {
        int last = response.readerIndex();
        for (int at = last; at + 4 <= response.writerIndex(); at += 4 + response.getUnsignedMediumLE(at)) {
            last = at;
        }
        return ErrPacket.read(response.slice(last + 4, response.getUnsignedMediumLE(last)));
    }

    /** Runs one internal command on the held connection; its framed response goes to {@code onResponse}. */
    public void runInternal(Consumer<ByteBuf> command, Response response, BiConsumer<ByteBuf, Boolean> onResponse) {
        internal.send(current, command, response, onResponse);
    }

    /**
     * Runs one internal command whose response is streamed: its framed bytes go to {@code chunks}
     * as they arrive (each chunk owned by the consumer), then {@code onEnd} hears whether it ended
     * in an ERR. Reading pauses while the connection's channel has autoRead off.
     */
    public void streamInternal(
            Consumer<ByteBuf> command, Response response, Consumer<ByteBuf> chunks, Consumer<Boolean> onEnd) {
        internal.stream(current, command, response, chunks, onEnd);
    }

    /**
     * A statement's response ended: remembers the status, and returns the connection to the pool
     * when nothing pins the session.
     */
    public void afterResponse(int status, boolean insert) {
        afterResponse(status, insert, false);
    }

    /** As {@link #afterResponse(int, boolean)}; {@code diagnostics}: see {@link DiagnosticsHold#after}. */
    public void afterResponse(int status, boolean insert, boolean diagnostics) {
        if (current != null && (insert || settingLastInsertId || current.relay().insertId() != 0)) {
            current.lastInsertIdUnknown();
            owner.lastInsertId().heldBy(this); // that server session's LAST_INSERT_ID() is this session's now
        }
        ended(status, insert, diagnostics);
    }

    /**
     * A part of a statement the router runs on several connections ended: as {@link
     * #afterResponse(int, boolean)}, except that the session's LAST_INSERT_ID() is the router's
     * business (see {@code ScatterExecution}); the server session's own may have changed.
     */
    public void afterPartResponse(int status) {
        if (current != null && current.relay().insertId() != 0) {
            current.lastInsertIdUnknown();
        }
        ended(status, false, false);
    }

    private void ended(int status, boolean insert, boolean diagnostics) {
        settingLastInsertId = false;
        pins.holdDiagnostics(diagnostics && current != null);
        statusFlags = status;
        writes.statementEnded();
        statements++;
        pins.statementEnded(insert);
        releaseIfFree();
        if (current != null && (pins.holdsInsertId() || readWaits())) {
            scheduleQuietEnd();
        }
    }

    private void scheduleQuietEnd() {
        long seen = statements;
        current.channel().eventLoop().schedule(() -> quiet(seen), INSERT_ID_HOLD_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** The hold timer: a session quiet since statement {@code seen} lets its connection go (its value read first). */
    private void quiet(long seen) {
        if (statements != seen
                || internal.pending()
                || current == null
                || !current.relay().idle()) {
            return;
        }
        if (pins.holdsInsertId()) {
            pins.endInsertIdHold();
            releaseIfFree();
        }
        if (readWaits()) {
            owner.readBeforeRelease(this);
        }
    }

    /**
     * The statement about to run may set LAST_INSERT_ID() in its server session without reporting
     * an insert id (a CALL, a LAST_INSERT_ID(expr) call): its end makes the connection the holder
     * of this session's value (see {@link LastInsertId}).
     */
    public void settingLastInsertId() {
        settingLastInsertId = true;
    }

    /**
     * Returns the connection if nothing pins the session and no response is outstanding; when its
     * server session holds the client session's LAST_INSERT_ID(), that is read first, before the
     * session's next statement or after a quiet second (see {@link #readDeferred}).
     */
    public void releaseIfFree() {
        if (current != null
                && current.relay().idle()
                && (statusFlags & ServerStatus.SERVER_STATUS_CURSOR_EXISTS) == 0
                && !pinned()) {
            if (owner.lastInsertId().holder() == this) {
                readDeferred = true; // see the field
                scheduleQuietEnd();
                return;
            }
            PooledConnection c = current;
            if (c.relay().raisedDiagnostics()) {
                c.relay().diagnosticsDirty(true); // e.g. one shard's warnings of a merged statement
            }
            current = null;
            borrower.returned(c);
            c.partition().release(c);
        }
    }

    /**
     * The connection running a command of this session right now (a response or an internal step
     * outstanding), marked so the pool never takes it back (see {@link
     * PooledConnection#markKillTarget}); null when none is running. Call on the session's loop:
     * there the lease also decides to give the connection back, so the mark comes first.
     */
    public BackendThread killTarget() {
        BackendThread running = running();
        if (running != null) {
            current.markKillTarget();
        }
        return running;
    }

    /**
     * The server thread running a command of this session right now (a response or an internal
     * step outstanding), or null. Call on the session's loop; unmarked, the connection may go back
     * to the pool as soon as the command ends.
     */
    public BackendThread running() {
        if (current == null || current.relay().idle()) {
            return null;
        }
        return new BackendThread(
                current.partition().pool().connector(),
                current.partition().pool().address(),
                hostgroup.ownLogin(),
                current.connection().handshake().connectionId());
    }

    /**
     * Reads the held connection's LAST_INSERT_ID() (the client session's while this lease is its
     * holder): {@code then} hears the value, or {@code failed} runs once the connection is gone
     * (lost, or an answer that is no value: then it is closed).
     */
    public void readLastInsertId(java.util.function.LongConsumer then, Runnable failed) {
        readDeferred = false;
        readAborted = failed;
        runInternal(out -> query(out, READ_LAST_INSERT_ID), Response.RESULT_SET, (response, error) -> {
            readAborted = null;
            Long value = error ? null : SingleValue.unsignedLong(response);
            if (value == null) {
                discard();
                failed.run();
                return;
            }
            current.lastInsertId(value);
            then.accept(value);
        });
    }

    /** Closes the held connection: its server session is lost or must not be reused. */
    public void discard() {
        pins.holdDiagnostics(false);
        readDeferred = false;
        if (current != null) {
            PooledConnection c = current;
            current = null;
            c.partition().discard(c);
            owner.lastInsertId().lostWith(this);
        }
        internal.drop();
        Runnable aborted = readAborted;
        readAborted = null;
        if (aborted != null) {
            aborted.run();
        }
    }

    /** The client left: a clean connection goes back, one in the middle of anything is closed. */
    public void close() {
        if (current == null) {
            return;
        }
        boolean clean = current.relay().idle()
                && !internal.pending()
                && (statusFlags & (ServerStatus.SERVER_STATUS_IN_TRANS | ServerStatus.SERVER_STATUS_CURSOR_EXISTS)) == 0
                && (statusFlags & ServerStatus.SERVER_STATUS_AUTOCOMMIT) != 0
                && pins.onlyConfigured();
        if (clean) {
            PooledConnection c = current;
            if (pins.holdsDiagnostics() || c.relay().raisedDiagnostics()) {
                c.relay().diagnosticsDirty(true);
            }
            pins.holdDiagnostics(false);
            current = null;
            c.partition().release(c);
        } else {
            discard();
        }
    }
}
