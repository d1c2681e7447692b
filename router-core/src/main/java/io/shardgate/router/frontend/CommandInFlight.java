package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.execute.PreparedStatementCommands;
import io.shardgate.router.execute.XaCommit;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.lease.DiagnosticsHold;
import io.shardgate.router.lease.LeaseOwner;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.twophase.ReadOnlyStatement;
import io.shardgate.sharding.digest.Digest;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The one command a client session is executing, from dispatch to the end of its response: the
 * lease it runs on (or none, when the router answers it from several), the effects it has on the
 * session once it succeeds, the client's packet until a backend takes it, the copy kept for a
 * retry, and a LOCAL INFILE upload in progress. It borrows and aligns the connection ({@link
 * #withConnection}), sends the command, and ends it when the relay reports the response complete,
 * when the router answers it, or when the connection is lost ({@link BackendLoss}). Every lease of the session reports its relay's client-facing events here.
 *
 * <p>Threading: the session's event loop. Invariant: at most one command is in flight; the next
 * is dispatched only after {@link SessionLifecycle#drain} sees {@link #busy()} false.
 */
final class CommandInFlight implements LeaseOwner {
    private final SessionPort session;
    private final SessionLifecycle lifecycle;
    private final SessionState state;
    private final PreparedStatementCommands prepared;
    /** The statement in flight, kept to run again if the connection borrowed for it was dead. */
    private final StatementRetry retry = new StatementRetry();

    private final BackendLoss loss;

    /** A command is between dispatch and the end of its response (or waits for a connection). */
    private boolean busy;
    /** Ends the command once the router's warning count after its answered response arrives; null otherwise. */
    private IntConsumer warningsCounted;
    /** The lease running the command in flight (single target), or null. */
    private BackendLease active;
    /** Effects of the statement in flight, applied when it succeeds. */
    private StatementEffects effects = StatementEffects.NONE;

    private boolean insert;
    /**
     * What the command in flight does to the diagnostics area when it raises nothing (see {@link
     * SessionPort#diagnosticsEffect}); UNSURE unless the router said otherwise before running it.
     */
    private DiagnosticsEffect area = DiagnosticsEffect.UNSURE;
    /**
     * The client's command from {@link #withConnection} until it is written to a backend (which
     * releases it) or answered: one reference owned here rather than by the callbacks of the
     * setup steps run before it (alignment, BEGIN, a lazy prepare), because a lost backend or a
     * closed session drops those callbacks unrun.
     */
    private Packet unsent;
    /** The command in {@link #withConnection} is written as soon as its connection is ready (see {@link BeginAhead}). */
    private boolean beginAhead;
    /** A LOCAL INFILE upload is running: client packets are file data until an empty one. */
    private boolean uploading;
    /** Drops what a command answered by the router itself holds, if the session closes first. */
    private Runnable routedAbort;
    /** Resumes the routed command in progress when the client can take writes again, or null. */
    private Runnable routedWritable;
    /** See {@link SessionPort#routedLossNote}; null when the command has none. */
    private java.util.function.Supplier<String> routedLossNote;

    private boolean waitingForMove;
    /**
     * Reads of the session's LAST_INSERT_ID() under way between commands (before a connection goes
     * back, see {@link #readBeforeRelease}): the next command waits for them.
     */
    private int lastInsertIdReads;

    CommandInFlight(
            SessionPort session, SessionLifecycle lifecycle, SessionState state, PreparedStatementCommands prepared) {
        this.session = session;
        this.lifecycle = lifecycle;
        this.state = state;
        this.prepared = prepared;
        this.loss = new BackendLoss(this, session, lifecycle);
    }

    /** A command is in flight, or the session reads its LAST_INSERT_ID() first: the next command waits. */
    boolean busy() {
        return busy || lastInsertIdReads > 0;
    }

    /** A client command is in flight (what a lost connection may have interrupted). */
    boolean commandBusy() {
        return busy;
    }

    /** See {@link SessionPort#waitsForMove}. */
    void waitsForMove(boolean waiting) {
        waitingForMove = waiting;
    }

    /**
     * Whether a command is on its way to or back from a backend: in flight and not parked before
     * reaching one ({@link MoveWait}). A cutover waits for these to end.
     */
    boolean reachesBackend() {
        return (busy && !waitingForMove) || uploading;
    }

    /** Holds the queue while the session does something of its own (the login's first borrow). */
    void busy(boolean busy) {
        this.busy = busy;
    }

    /** The lease running the command in flight, or null. */
    BackendLease active() {
        return active;
    }

    boolean uploading() {
        return uploading;
    }

    /** A client packet of the LOCAL INFILE upload: forwarded as it is; an empty one ends the file. */
    void upload(Packet packet) {
        // LOCAL INFILE data keeps the client's sequence ids
        uploading = packet.payload().isReadable();
        PooledConnection c = active.current();
        c.channel().writeAndFlush(packet, c.channel().voidPromise());
    }

    void diagnosticsEffect(DiagnosticsEffect effect) {
        area = effect;
    }

    /** See {@link SessionPort#run(BackendLease, Packet, Response, StatementEffects, boolean, boolean)}. */
    void run(
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
                read && StatementRetry.eligible(lease, response, effects),
                response != null);
    }

    /** See {@link SessionPort#withConnection}. */
    void withConnection(BackendLease lease, Packet packet, Consumer<PooledConnection> then, boolean retryable) {
        withConnection(lease, packet, then, retryable, false);
    }

    /**
     * As {@link #withConnection(BackendLease, Packet, Consumer, boolean)}; {@code sends}: {@code then}
     * writes {@code packet} at once (nothing of the router's own first), so a BEGIN may go ahead of
     * it in the same write ({@link BeginAhead}).
     */
    private void withConnection(
            BackendLease lease, Packet packet, Consumer<PooledConnection> then, boolean retryable, boolean sends) {
        busy = true;
        active = lease;
        // (inside a transaction the retry would have to replay its BEGIN: not worth it)
        retry.start(packet, then, retryable && state.transaction().start() == null);
        beginAhead = sends;
        acquire(lease, packet, then);
    }

    /** Borrows and aligns a connection for {@code packet}, whose reference passes to {@link #unsent}. */
    private void acquire(BackendLease lease, Packet packet, Consumer<PooledConnection> then) {
        releaseUnsent(); // none is left over: one command at a time
        unsent = packet;
        int command = packet.payload().getUnsignedByte(packet.payload().readerIndex());
        if (state.lastInsertId().holder() instanceof BackendLease holder && holder.current() != null) {
            Digest digest = session.statement().digest();
            boolean read = holder == lease
                    // a connection waiting only for that read: read now, it stays for this statement
                    ? holder.readWaits() && !LastInsertId.readsQueryCost(digest)
                    // another connection holds it: the router keeps it from there, then gives it
                    // to this one (the alignment)
                    : holder.readWaits() || LastInsertId.mayObserve(digest);
            if (read) {
                readLastInsertId(holder, holder != lease, () -> acquire(lease, command, then));
                return;
            }
        }
        acquire(lease, command, then);
    }

    private void acquire(BackendLease lease, int command, Consumer<PooledConnection> then) {
        if (lifecycle.isClosed()) {
            proceed(null);
            return;
        }
        // only statements run inside the transaction: a COM_STMT_PREPARE (MariaDB Connector/J sends
        // it at the first execution, mid-transaction) must not begin it on the hostgroup it goes to
        boolean inside = state.transaction().start() != null
                && (command == Command.COM_QUERY.code() || command == Command.COM_STMT_EXECUTE.code());
        List<String> begin = inside && state.transaction().mayBegin(lease.transactionOpen())
                ? state.transaction().beginSteps(lease.hostgroup().id())
                : null;
        boolean ahead = beginAhead && BeginAhead.allowed(begin);
        lease.acquire(state.desired(), ahead ? null : begin, (connection, error) -> {
            if (proceed(error)) {
                if (inside) {
                    if (ahead && !lease.transactionOpen()) {
                        lease.beginAhead(begin.get(0)); // written, flushed with the statement by then
                    }
                    SessionTransaction transaction = state.transaction();
                    transaction.reached();
                    int hostgroup = lease.hostgroup().id();
                    if (transaction.xid() != null) {
                        lease.pin(XaCommit.BRANCH); // until XaCommit ends it, whatever the status flags say
                        if (!transaction.wrote(hostgroup)) {
                            transaction.ran(
                                    hostgroup,
                                    !ReadOnlyStatement.is(session.statement().digest()));
                        }
                    }
                }
                retry.sent();
                then.accept(connection);
            }
        });
    }

    /** Releases the client's command if it was neither sent nor released yet (see {@link #unsent}). */
    void releaseUnsent() {
        if (unsent != null) {
            Packet p = unsent;
            unsent = null;
            p.release();
        }
    }

    /** False (the command answered or dropped) when the session closed or no connection came. */
    private boolean proceed(ErrPacket error) {
        if (lifecycle.isClosed() || error != null) {
            retry.drop();
        }
        if (lifecycle.isClosed()) {
            releaseUnsent();
            session.leases().close();
            return false;
        }
        if (error != null) {
            fail(error);
            return false;
        }
        return true;
    }

    /** See {@link SessionPort#send}. */
    void send(PooledConnection connection, Packet packet, Response response, StatementEffects effects, boolean insert) {
        if (packet == unsent) {
            unsent = null; // the backend's encoder releases it now
        }
        this.effects = effects;
        this.insert = insert;
        if (response != null) {
            connection.relay().expect(response);
        }
        connection.channel().writeAndFlush(packet, connection.channel().voidPromise());
        if (response == null) {
            finish(active.statusFlags(), false);
        }
    }

    /** See {@link SessionPort#fail}. */
    void fail(ErrPacket error) {
        area = DiagnosticsEffect.UNSURE;
        releaseUnsent();
        busy = false;
        session.statement().ended(true);
        prepared.commandFinished();
        session.reply(1, error);
        session.leases().releaseIfFree();
        afterStatement();
        lifecycle.drain();
    }

    /** See {@link SessionPort#startRouted(Runnable, Runnable)}. */
    void startRouted(Runnable abort, Runnable writable) {
        busy = true;
        active = null;
        routedAbort = abort;
        routedWritable = writable;
        routedLossNote = null;
    }

    /** See {@link SessionPort#routedLossNote}. */
    void routedLossNote(java.util.function.Supplier<String> note) {
        routedLossNote = note;
    }

    /** What a lost connection's error must add for the routed command in progress, or null. */
    String lossNote() {
        return busy && active == null && routedLossNote != null ? routedLossNote.get() : null;
    }

    /** See {@link SessionPort#resumeRouted}. */
    void resumeRouted(Runnable command) {
        busy = false;
        waitingForMove = false;
        routedAbort = null;
        command.run();
        lifecycle.drain();
    }

    /** See {@link SessionPort#finishRouted}. */
    void finishRouted(ByteBuf response) {
        session.cache().routedResponse(response);
        busy = false;
        session.statement().ended(false);
        routedAbort = null;
        routedWritable = null;
        routedLossNote = null;
        prepared.commandFinished();
        if (!lifecycle.isClosed()) {
            session.write(response);
        } else {
            response.release();
        }
        afterStatement();
        session.leases().releaseIfFree();
        lifecycle.drain();
    }

    /** The client can take writes again: a routed command that waited for that goes on. */
    void clientWritable() {
        if (routedWritable != null) {
            routedWritable.run();
        }
    }

    /** The session closes: what the command holds is released, its cache fill abandoned, a routed one aborted. */
    void sessionClosed() {
        retry.drop();
        warningsCounted = null;
        releaseUnsent();
        session.cache().sessionClosed();
        routedWritable = null;
        if (routedAbort != null) {
            Runnable abort = routedAbort;
            routedAbort = null;
            abort.run();
        }
    }

    /**
     * An explicit transaction ends with the last connection that has it open. Under autocommit=0
     * too: its BEGIN must not be replayed before the statements after COMMIT (a SET TRANSACTION
     * there got 1568, issue 23's mtr main.commit).
     */
    private void afterStatement() {
        // a two_phase transaction ends with its COMMIT / ROLLBACK only (XaTransactionEnd): a deadlock
        // clears SERVER_STATUS_IN_TRANS on one branch while the others stay open
        if (state.transaction().opened()
                && state.transaction().xid() == null
                && !session.leases().serverTransactionOpen()) {
            state.transaction().end();
        }
    }

    /**
     * Reads the session's LAST_INSERT_ID() off {@code holder}'s connection, keeps it (the holder's
     * connection may go back now), then runs {@code then}. When that connection is lost meanwhile
     * the value is unknown ({@link LastInsertId#lost()}) and {@code then} runs after the loss is handled.
     */
    void readLastInsertId(BackendLease holder, boolean release, Runnable then) {
        holder.readLastInsertId(
                value -> {
                    state.lastInsertId().read(holder, value);
                    if (release) {
                        holder.releaseIfFree();
                    }
                    then.run();
                },
                () -> holder.client().eventLoop().execute(then));
    }

    // LeaseOwner: what a lease passes on from its relay, naming itself

    @Override
    public LastInsertId lastInsertId() {
        return state.lastInsertId();
    }

    @Override
    public Digest statementDigest() {
        return session.statement().digest();
    }

    /** See {@link SessionPort#readLastInsertId}. */
    void readBeforeStatement(BackendLease holder, Runnable then, Runnable dropped) {
        lastInsertIdReads++;
        readLastInsertId(holder, true, () -> {
            lastInsertIdReads--;
            if (lifecycle.isClosed()) {
                dropped.run();
                return;
            }
            then.run();
            lifecycle.drain();
        });
    }

    @Override
    public void readBeforeRelease(BackendLease lease) {
        if (lifecycle.isClosed()) {
            lease.discard(); // the client is gone: nothing will read the value
            return;
        }
        lastInsertIdReads++;
        readLastInsertId(lease, true, () -> {
            lastInsertIdReads--;
            lifecycle.drain();
        });
    }

    /** The client channel relayed bytes are written to. */
    @Override
    public Channel client() {
        return session.client();
    }

    /** The relayed response(s) of the command ended. */
    @Override
    public void responsesComplete(BackendLease lease, int statusFlags, boolean lastWasError) {
        finish(statusFlags, lastWasError);
    }

    /** The server asked for a LOCAL INFILE upload: client packets are file data until an empty one. */
    @Override
    public void localInfileRequested() {
        uploading = true;
    }

    /** A COM_STMT_PREPARE_OK is being relayed: the router's statement id replaces the backend's. */
    @Override
    public void prepareOk(BackendLease lease, ByteBuf in, int payload) {
        prepared.prepareOk(lease, in, payload);
    }

    /** The response ended: settles the diagnostics hold (asking the server if need be), then ends the command. */
    private void finish(int statusFlags, boolean error) {
        retry.drop();
        BackendLease lease = active;
        PooledConnection connection = lease.current();
        DiagnosticsEffect effect = area;
        area = DiagnosticsEffect.UNSURE;
        int warnings = connection != null ? connection.relay().warnings() : 0;
        boolean raised = error || warnings > 0;
        Boolean hold =
                DiagnosticsHold.after(effect == DiagnosticsEffect.READS, lease.holdsDiagnostics(), error, warnings);
        long insertId = connection != null ? connection.relay().insertId() : 0;
        long rows = connection != null ? connection.relay().rows() : 0;
        long affected = connection != null ? connection.relay().affectedRows() : 0;
        long rowCount = connection == null
                ? PreviousStatement.UNKNOWN
                : PreviousStatement.rowCountAfter(
                        error, connection.relay().results(), connection.relay().okResults(), affected);
        // the server session as the statement left it: the check below is a statement of the router's
        // own, which replaces ROW_COUNT() there (the epoch then differs, so it is not asked later)
        long epoch = lease.epoch();
        if (hold == null && connection != null) {
            // the statement raised nothing, but one without tables leaves the earlier warnings
            // in place: ask the server (the next command waits, as the command is not over)
            IntConsumer counted = count -> finish(
                    statusFlags,
                    error,
                    count > 0,
                    count < 0,
                    insertId,
                    rows,
                    affected,
                    rowCount,
                    epoch,
                    raised,
                    effect);
            warningsCounted = counted;
            lease.countWarnings(count -> {
                warningsCounted = null;
                counted.accept(count);
            });
            return;
        }
        finish(
                statusFlags,
                error,
                hold != null && hold,
                false,
                insertId,
                rows,
                affected,
                rowCount,
                epoch,
                raised,
                effect);
    }

    /** Whether the command waits only for the router's warning count after its answered response. */
    boolean checkingWarnings() {
        return warningsCounted != null;
    }

    /**
     * The connection asked for the warning count was lost ({@link LossDecision.Outcome#FINISH}): the
     * command ends as answered, and what that connection's diagnostics area held is unknown.
     */
    void checkLost() {
        IntConsumer counted = warningsCounted;
        warningsCounted = null;
        counted.accept(-1);
    }

    private void finish(
            int statusFlags,
            boolean error,
            boolean holdDiagnostics,
            boolean diagnosticsLost,
            long insertId,
            long rows,
            long affected,
            long rowCount,
            long epoch,
            boolean raised,
            DiagnosticsEffect effect) {
        StatementEffects effects = this.effects;
        this.effects = StatementEffects.NONE;
        prepared.commandFinished();
        BackendLease lease = active;
        if (effects.changesGlobals() && lease.current() != null) {
            lease.current().partition().pool().globalsChanged(); // even a failed SET may have set some
        }
        if (!error) {
            state.apply(effects);
            if (lease.current() != null) {
                lease.current().state(lease.current().state().apply(effects));
            }
            lease.pin(effects.pins());
        } else if (!effects.variables().isEmpty() && lease.current() != null) {
            // a failed SET may have applied part of its assignments: that session is unknown now
            lease.pin(EnumSet.of(PinReason.UNTRACKED_SET));
        }
        busy = false;
        if (lease.current() != null) {
            state.previous().ranOn(lease, epoch, rowCount);
            session.statement().ended(error, rows, affected);
        } else {
            session.statement().ended(error);
        }
        session.leases().statementEnded(lease, raised, effect);
        if (diagnosticsLost) {
            session.leases().diagnosticsUnknown(); // before the next command runs (drain below)
        }
        lease.afterResponse(statusFlags, insert && !error, holdDiagnostics);
        afterStatement();
        session.cache().commandEnded(error);
        lifecycle.drain();
    }

    /** The lease's connection closed or failed. */
    @Override
    public void backendLost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        loss.lost(lease, reason, midPacket, nextSequenceId);
    }

    /** The lease's backend stayed silent past the query timeout and was closed. */
    @Override
    public void queryTimedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        loss.timedOut(lease, reason, midPacket, nextSequenceId);
    }

    /** The statement kept for another run. */
    StatementRetry retry() {
        return retry;
    }

    /** Runs the kept statement again on {@code lease} (see {@link BackendLoss}). */
    void again(BackendLease lease, Packet packet, Consumer<PooledConnection> then) {
        acquire(lease, packet, then);
    }

    /**
     * Ends the statement in flight with {@code error} (sequence {@code sequenceId}, after what its
     * backend relayed) when its backend connection is gone but held nothing of the session.
     */
    void answer(int sequenceId, ErrPacket error) {
        effects = StatementEffects.NONE;
        busy = false;
        session.statement().ended(true);
        prepared.commandFinished();
        session.reply(sequenceId, error);
        session.leases().releaseIfFree();
        afterStatement();
        lifecycle.drain();
    }
}
