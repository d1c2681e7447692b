package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.shardgate.merge.BufferedMerge;
import io.shardgate.merge.GroupedMerge;
import io.shardgate.merge.MergeException;
import io.shardgate.merge.ResultMerge;
import io.shardgate.merge.StreamingMerge;
import io.shardgate.protocol.codec.EscapedText;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.ParameterType;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.twophase.ReadOnlyStatement;
import io.shardgate.router.twophase.Xid;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.LimitValue;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.RenderedSql;
import io.shardgate.sharding.plan.ShardSql;
import io.shardgate.sharding.plan.StatementKind;
import io.shardgate.sharding.plan.Target;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One statement on several hostgroups: each target's lease borrows a connection (inside the
 * session's transaction when one is open), receives the SQL the plan renders for it, and the
 * targets' responses are merged into the client's answer. Targets run in parallel.
 *
 * <p>Memory. A merge that needs at most one row per shard (a concatenation, ORDER BY, LIMIT) is
 * streamed ({@link StreamingMerge}): rows go to the client as the shards deliver them, a shard's
 * reading pauses (autoRead off) while its queue is full or the client cannot take more, and once
 * LIMIT is reached the rest of every response is read and dropped, so each connection ends clean
 * (a transaction on it stays intact) before the next statement runs. Grouping, aggregates and
 * DISTINCT fold each row into their groups as it arrives ({@link GroupedMerge}) and answer when
 * every shard has ended; OK responses (writes) are buffered whole ({@link BufferedMerge}): one
 * {@link ResultMerge}, chosen by {@link ResultMerge#of}.
 * Either way the merge holds at most {@code server.max_merge_bytes} (for groups: as estimated from
 * their values); beyond that the statement fails with ER_OUT_OF_RESOURCES.
 *
 * <p>Runs on the session's event loop; what it holds is released on completion, on failure and
 * when the client leaves ({@link #abort}).
 */
final class ScatterExecution {
    /** Backend connections never negotiate query attributes: parameters go without names. */
    private static final Capabilities BACKEND = Capabilities.NONE;
    /** A router-generated key bound to a placeholder: BIGINT. */
    private static final ParameterType GENERATED_KEY = new ParameterType(MySqlType.LONGLONG, false);
    /** Bytes of merged rows written to the client at a time. */
    private static final int BATCH_BYTES = 32 * 1024;

    private final SessionPort session;
    private final Plan plan;
    private final Targets targets;
    private final Values values;
    /** The client's COM_STMT_EXECUTE parameters (binary protocol), or null for a text statement. */
    private final ComStmtExecute parameters;

    private final long maxBytes;
    /** The plan's merge for this execution's values. */
    private final MergeSpec merge;
    /** How the targets' responses become the client's answer: streamed, grouped or buffered. */
    private final ResultMerge results;
    /** The connection each target's response comes from, while it runs. */
    private final PooledConnection[] connections;

    private int pending;
    /** The client's answer is written (or decided); what still arrives is read and dropped. */
    private boolean answered;

    private boolean aborted;
    /** The statement may set LAST_INSERT_ID() in each server session it runs in: the value is unknown after. */
    private boolean changesLastInsertId;
    /** How this statement, a write on several shards, is kept all-or-nothing. */
    private final StatementAtomicity atomicity;
    /** The lease each target ran on once it had its connection: where the end step runs. */
    private final BackendLease[] participants;
    /** Some target answered with an ERR or could not run. */
    private boolean anyFailed;
    /** End steps (COMMIT, ROLLBACK...) still running. */
    private int ending;
    /** The first end step that failed and the client must hear of (a COMMIT), or null. */
    private ErrPacket endError;
    /** The XA id of the statement's branches ({@link StatementAtomicity#XA}), else null. */
    private final Xid xid;
    /** The two-phase commit or rollback ending the statement's XA branches, while it runs. */
    private XaCommit xaEnd;

    ScatterExecution(SessionPort session, Plan plan, Targets targets, Values values) {
        this(session, plan, targets, values, null);
    }

    ScatterExecution(SessionPort session, Plan plan, Targets targets, Values values, ComStmtExecute parameters) {
        this.session = session;
        this.plan = plan;
        this.targets = targets;
        this.values = values;
        this.parameters = parameters;
        int n = targets.targets().size();
        this.maxBytes = session.services().settings().maxMergeBytes();
        this.connections = new PooledConnection[n];
        this.participants = new BackendLease[n];
        this.atomicity = StatementAtomicity.of(
                plan.kind(),
                n,
                session.transaction().start() != null,
                session.leases().statusFlags(),
                TwoPhaseRules.twoPhase(session));
        Xid fresh = atomicity == StatementAtomicity.XA
                ? session.services().twoPhase().next()
                : null;
        // the statement's first shard is its metadata manager
        this.xid = fresh == null
                ? null
                : fresh.withManager(targets.targets().get(0).hostgroup());
        this.merge = plan.merge().resolve(values);
        this.results = ResultMerge.of(
                plan.kind() == StatementKind.SELECT,
                session.client().alloc(),
                n,
                merge,
                limit(merge.offset(), -1),
                limit(merge.count(), -1),
                parameters != null,
                deprecateEof(),
                maxBytes);
    }

    void start() {
        if (atomicity == StatementAtomicity.XA && xid == null) {
            session.reply(1, TwoPhaseRules.noEpoch());
            return;
        }
        Digest digest = session.statement().digest();
        if (session.lastInsertId().holder() instanceof BackendLease holder
                && holder.current() != null
                && (holder.readWaits() || LastInsertId.mayObserve(digest))) {
            // each shard's server session is given the session's LAST_INSERT_ID(): known first
            session.readLastInsertId(holder, this::start, this::abort); // abort: the session closed meanwhile
            return;
        }
        changesLastInsertId = digest == null || LastInsertId.mayChange(digest);
        if (changesLastInsertId) {
            session.lastInsertId().lost(); // each shard's server session may set its own (keys: see answered)
        }
        session.startRouted(this::abort, this::clientWritable);
        List<Target> list = targets.targets();
        pending = list.size();
        for (int i = 0; i < list.size(); i++) {
            run(i, list.get(i));
        }
    }

    private void run(int index, Target target) {
        BackendLease lease = session.leases().get(target.hostgroup());
        if (lease == null) {
            failed(
                    index,
                    Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "hostgroup " + target.hostgroup() + " is not configured"));
            return;
        }
        RenderedSql sql = plan.sql(targets, target, values);
        List<String> begin = atomicity.begin(
                session.transaction().beginSteps(target.hostgroup()),
                xid,
                target.hostgroup(),
                xid == null ? null : session.services().twoPhase().decisions());
        lease.acquire(session.desired(), begin, (connection, error) -> {
            if (aborted) {
                lease.releaseIfFree();
                return;
            }
            if (error != null) {
                failed(index, error);
                return;
            }
            session.transaction().reached();
            participants[index] = lease;
            if (changesLastInsertId) {
                connection.lastInsertIdUnknown();
            }
            if (xid != null || session.transaction().xid() != null) {
                lease.pin(XaCommit.BRANCH);
            }
            if (session.transaction().xid() != null) {
                session.transaction()
                        .ran(
                                target.hostgroup(),
                                !ReadOnlyStatement.is(session.statement().digest()));
            }
            String before = atomicity.before();
            if (before == null) {
                send(lease, connection, index, sql);
                return;
            }
            lease.runStatement(before, failure -> {
                if (aborted) {
                    return;
                }
                if (failure != null) {
                    received(index, error(failure));
                    ended(lease, index, true);
                } else {
                    send(lease, connection, index, sql);
                }
            });
        });
    }

    private void send(BackendLease lease, PooledConnection connection, int index, RenderedSql sql) {
        if (parameters == null) {
            stream(
                    lease,
                    index,
                    out -> EscapedText.write(
                            out.writeByte(Command.COM_QUERY.code()), sql.sql(), session.textCharset()));
        } else {
            executePrepared(lease, connection, index, sql);
        }
    }

    /** Sends the target's command; its response streams into {@link #received}. */
    private void stream(BackendLease lease, int index, Consumer<ByteBuf> command) {
        connections[index] = lease.current();
        lease.streamInternal(
                command, Response.RESULT_SET, chunk -> received(index, chunk), error -> ended(lease, index, error));
    }

    /** The binary protocol: the target's SQL prepared on that connection (once), then executed. */
    private void executePrepared(BackendLease lease, PooledConnection connection, int index, RenderedSql sql) {
        Integer id = connection.statementId(sql.sql());
        if (id != null) {
            execute(lease, index, sql, id);
            return;
        }
        lease.runInternal(
                out -> EscapedText.write(
                        out.writeByte(Command.COM_STMT_PREPARE.code()), sql.sql(), session.textCharset()),
                Response.PREPARE,
                (response, failed) -> {
                    if (aborted) {
                        return;
                    }
                    if (failed) {
                        received(index, response.retain());
                        ended(lease, index, true);
                        return;
                    }
                    int prepared = response.getIntLE(response.readerIndex() + 5);
                    PreparedStatementCommands.remember(connection, sql.sql(), prepared);
                    execute(lease, index, sql, prepared);
                });
    }

    private void execute(BackendLease lease, int index, RenderedSql sql, int statementId) {
        int n = sql.parameters().size();
        byte[] nulls = new byte[(n + 7) / 8];
        List<ParameterType> types = new ArrayList<>(n);
        List<byte[]> bound = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int p = sql.parameters().get(i);
            if (p < 0) {
                types.add(GENERATED_KEY);
                bound.add(longLe(values.generatedKey(ShardSql.GeneratedKey.rowOf(p))));
                continue;
            }
            types.add(parameters.types().get(p));
            bound.add(parameters.values().get(p));
            if (parameters.values().get(p) == null) {
                nulls[i >>> 3] |= (byte) (1 << (i & 7));
            }
        }
        ComStmtExecute execute =
                new ComStmtExecute(statementId, 0, 1, nulls, true, types, Collections.nCopies(n, ""), bound);
        stream(lease, index, out -> execute.write(out, BACKEND));
    }

    private static byte[] longLe(long value) {
        byte[] out = new byte[8];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (value >>> (8 * i));
        }
        return out;
    }

    /** A target could not run (no connection, unknown hostgroup): its answer is this ERR. */
    private void failed(int index, ErrPacket error) {
        if (!aborted) {
            received(index, session.frame(1, error::write));
        }
        ended(null, index, true);
    }

    /** Bytes of target {@code index}'s response (framed as the server sent them); owned here. */
    private void received(int index, ByteBuf chunk) {
        if (aborted || answered) {
            chunk.release(); // the client's answer is out: the rest is read to the end and dropped
            return;
        }
        results.addAndRelease(index, chunk);
        if (results instanceof StreamingMerge) {
            pump();
        } else if (results instanceof ResultMerge.Whole whole && whole.overBudget()) {
            answer(error(Errors.of(
                    ErrorCode.ER_OUT_OF_RESOURCES,
                    "Out of memory: merging the results of " + connections.length
                            + " shards needs more than server.max_merge_bytes (" + maxBytes + " bytes); "
                            + whole.holds())));
        }
    }

    /** Target {@code index}'s response ended, in an ERR if {@code failed} ({@code lease} null when it never ran). */
    private void ended(BackendLease lease, int index, boolean failed) {
        anyFailed |= failed;
        connections[index] = null;
        PooledConnection connection = lease == null ? null : lease.current();
        if (connection != null) {
            connection.channel().config().setAutoRead(true); // it may have been paused for the merge
            lease.afterPartResponse(connection.relay().statusFlags());
        }
        pending--;
        if (aborted) {
            return;
        }
        if (results instanceof StreamingMerge) {
            pump();
        } else if (pending == 0 && !answered) {
            if (atomicity == StatementAtomicity.XA) {
                endXaBranches();
                return; // answered and finished when the commit or rollback is
            }
            String after = atomicity.after(anyFailed);
            if (after != null) {
                endOnEachShard(after);
                return; // answered and finished when the end steps are
            }
            if (plan.kind() == StatementKind.DDL && session.services().schemaTracker() != null) {
                answerAfterColumnRefresh();
                return;
            }
            answerAndFinish(merged());
            return;
        }
        if (pending == 0 && !aborted && (!(results instanceof StreamingMerge streaming) || streaming.complete())) {
            finish();
        }
    }

    /**
     * The atomicity's end step ({@code sql}: COMMIT, ROLLBACK or ROLLBACK TO SAVEPOINT) on every
     * shard the statement ran on, then the client's answer: the merged one, or a failed COMMIT's
     * error. A failed ROLLBACK is not reported: the shard's statement failed, or its connection
     * did and the server rolled back with it.
     */
    private void endOnEachShard(String sql) {
        List<BackendLease> running = new ArrayList<>(participants.length);
        for (BackendLease lease : participants) {
            if (lease != null && lease.current() != null) {
                running.add(lease);
            }
        }
        ending = running.size();
        if (ending == 0) {
            endedOnEachShard();
            return;
        }
        for (BackendLease lease : running) {
            lease.runStatement(sql, failure -> {
                if (failure != null && endError == null && sql.equals(StatementAtomicity.COMMIT)) {
                    endError = new ErrPacket(
                            failure.code(),
                            failure.sqlState(),
                            failure.message() + " (COMMIT of a statement on several shards failed on hostgroup "
                                    + lease.hostgroup().id() + "; other shards may have committed it)");
                }
                lease.releaseIfFree();
                if (--ending == 0) {
                    endedOnEachShard();
                }
            });
        }
    }

    /** Commits the statement's XA branches in two phases, or rolls them back when a shard failed. */
    private void endXaBranches() {
        List<BackendLease> ran = new ArrayList<>(participants.length);
        for (BackendLease lease : participants) {
            if (lease != null) {
                ran.add(lease);
            }
        }
        if (ran.isEmpty()) {
            endedOnEachShard();
            return;
        }
        // the statement's own XA branches: a write on every shard it ran on, none read-only
        xaEnd = new XaCommit(session.services().twoPhase(), xid, ran, Set.of(), error -> {
            xaEnd = null;
            endError = error;
            endedOnEachShard();
        });
        session.routedLossNote(xaEnd::lossNote);
        if (anyFailed) {
            xaEnd.rollback();
        } else {
            xaEnd.commit();
        }
    }

    private void endedOnEachShard() {
        if (aborted) {
            return;
        }
        // (on an error, what the merge held is released)
        answerAndFinish(endError != null ? error(endError) : merged());
    }

    /**
     * DDL on several hostgroups may change a tracked table's columns: the client gets its answer once
     * schema tracking has re-read them, so its next statement (a dump's INSERT right after its
     * CREATE TABLE) is planned with the new column list.
     */
    private void answerAfterColumnRefresh() {
        Channel client = session.client();
        session.services()
                .schemaTracker()
                .refresh()
                .addListener(f -> client.eventLoop().execute(() -> {
                    if (!aborted && !answered) {
                        answerAndFinish(merged());
                    }
                }));
    }

    /** Writes what the streamed merge can give while the client takes it; pauses or resumes the shards. */
    private void pump() {
        if (aborted || answered || !(results instanceof StreamingMerge streaming)) {
            return;
        }
        Channel client = session.client();
        int status = session.leases().statusFlags();
        while (client.isWritable()) {
            ByteBuf out = streaming.poll(BATCH_BYTES, pending == 0, status);
            if (out == null) {
                break;
            }
            session.writeRouted(out);
        }
        if (streaming.complete()) {
            answered = true;
            streaming.close();
        }
        boolean writable = client.isWritable();
        for (int i = 0; i < connections.length; i++) {
            if (connections[i] != null) {
                connections[i].channel().config().setAutoRead(answered || (writable && streaming.wantsMore(i)));
            }
        }
    }

    /** The client's channel can take writes again: merge on. */
    private void clientWritable() {
        if (results instanceof StreamingMerge streaming
                && !aborted
                && !answered
                && session.client().isWritable()) {
            pump();
            if (pending == 0 && streaming.complete()) {
                finish();
            }
        }
    }

    /** The answer of a merge of whole responses, or its error; what it held is released. */
    private ByteBuf merged() {
        ResultMerge.Whole whole = (ResultMerge.Whole) results;
        try {
            return whole.result(session.leases().statusFlags());
        } catch (MergeException e) {
            return error(e.toErr());
        } finally {
            whole.close();
        }
    }

    /** Sends the client's whole answer now; responses still arriving are dropped. */
    private void answer(ByteBuf response) {
        session.writeRouted(answered(response));
    }

    /**
     * Answers with {@code response} and ends the command in one step: the session's result cache
     * hears the end (a write's invalidation) before the client's OK is written, so no read of
     * another client that follows the OK is served a result stored before the write.
     */
    private void answerAndFinish(ByteBuf response) {
        session.finishRouted(answered(response));
    }

    /** The client's answer is {@code response}: what the session keeps of it; the answer to write. */
    private ByteBuf answered(ByteBuf response) {
        answered = true;
        if (results instanceof ResultMerge.Whole whole) {
            whole.close(); // (a streamed merge is closed when it completes or the session aborts)
        }
        long generated = values.firstGeneratedKey();
        if (generated != 0 && GeneratedInsertOk.isOk(response)) {
            response = GeneratedInsertOk.withInsertIdAndRelease(session.client().alloc(), response, generated);
            session.lastInsertId().generated(generated);
        }
        session.previous().answered(PreviousStatement.UNKNOWN, rowCount(response));
        return response;
    }

    /**
     * ROW_COUNT() after the merged answer {@code response}: an OK's affected rows, -1 after a result
     * set (as MySQL gives after any SELECT); unknown after an ERR.
     */
    private static long rowCount(ByteBuf response) {
        int payload = response.readerIndex() + Frame.HEADER_SIZE;
        if (response.readableBytes() <= Frame.HEADER_SIZE) {
            return PreviousStatement.UNKNOWN;
        }
        return switch (response.getUnsignedByte(payload)) {
            case 0x00 -> LengthEncoded.readInt(response.duplicate().readerIndex(payload + 1));
            case 0xFF -> PreviousStatement.UNKNOWN;
            default -> -1;
        };
    }

    /** Every target's response has ended and the client has its answer: the session moves on. */
    private void finish() {
        session.finishRouted(Unpooled.EMPTY_BUFFER);
    }

    private boolean deprecateEof() {
        return (session.capabilities().flags() & CapabilityFlags.CLIENT_DEPRECATE_EOF) != 0;
    }

    private ByteBuf error(ErrPacket error) {
        return session.frame(1, error::write);
    }

    private long limit(int slot, long absent) {
        if (slot < 0) {
            return absent;
        }
        long value = LimitValue.of(values.scalar(slot));
        return value < 0 ? absent : value;
    }

    /** The session closed before the answer was complete: drop what was collected. */
    private void abort() {
        aborted = true;
        if (xaEnd != null) {
            xaEnd.abandon();
        }
        results.close();
    }
}
