package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.ParameterType;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.router.merge.MergeException;
import io.shardgate.router.merge.ShardResultMerger;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.RenderedSql;
import io.shardgate.sharding.plan.ShardSql;
import io.shardgate.sharding.plan.Target;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.KeyValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One statement on several hostgroups: each target's lease borrows a connection (inside the
 * session's transaction when one is open), receives the SQL the plan renders for it, and its whole
 * response is collected; when the last one arrives {@link ShardResultMerger} builds the client's
 * answer. Targets run in parallel. Buffering whole responses bounds memory by the result size;
 * the streaming merge is the next step (issue #3).
 */
final class ScatterExecution {
    /** Backend connections never negotiate query attributes: parameters go without names. */
    private static final Capabilities BACKEND = Capabilities.NONE;
    /** A router-generated key bound to a placeholder: BIGINT. */
    private static final ParameterType GENERATED_KEY = new ParameterType(MySqlType.LONGLONG, false);

    private final FrontendSession session;
    private final Plan plan;
    private final Targets targets;
    private final Values values;
    /** The client's COM_STMT_EXECUTE parameters (binary protocol), or null for a text statement. */
    private final ComStmtExecute parameters;

    private final ByteBuf[] responses;
    private int pending;
    private boolean aborted;

    ScatterExecution(FrontendSession session, Plan plan, Targets targets, Values values) {
        this(session, plan, targets, values, null);
    }

    ScatterExecution(FrontendSession session, Plan plan, Targets targets, Values values, ComStmtExecute parameters) {
        this.session = session;
        this.plan = plan;
        this.targets = targets;
        this.values = values;
        this.parameters = parameters;
        this.responses = new ByteBuf[targets.targets().size()];
    }

    /** Refuses what a scatter cannot keep right: session effects that would land on one shard only. */
    static String refusal(StatementEffects effects) {
        return effects.isNone() ? null : "a statement on several hostgroups that changes session state";
    }

    void start() {
        session.startRouted(this::abort);
        List<Target> list = targets.targets();
        pending = list.size();
        for (int i = 0; i < list.size(); i++) {
            run(i, list.get(i));
        }
    }

    private void run(int index, Target target) {
        BackendLease lease = session.leases().get(target.hostgroup());
        if (lease == null) {
            done(
                    index,
                    error(Errors.of(
                            ErrorCode.ER_UNKNOWN_ERROR, "hostgroup " + target.hostgroup() + " is not configured")));
            return;
        }
        RenderedSql sql = plan.sql(targets, target, values);
        lease.acquire(session.desired(), session.transactionStart(), (connection, error) -> {
            if (aborted) {
                lease.releaseIfFree();
                return;
            }
            if (error != null) {
                done(index, error(error));
                return;
            }
            if (parameters == null) {
                lease.runInternal(
                        out -> out.writeByte(Command.COM_QUERY.code())
                                .writeCharSequence(sql.sql(), StandardCharsets.UTF_8),
                        Response.RESULT_SET,
                        (response, failed) -> finished(lease, index, response));
            } else {
                executePrepared(lease, connection, index, sql);
            }
        });
    }

    /** The binary protocol: the target's SQL prepared on that connection (once), then executed. */
    private void executePrepared(BackendLease lease, PooledConnection connection, int index, RenderedSql sql) {
        Integer id = connection.statementId(sql.sql());
        if (id != null) {
            execute(lease, index, sql, id);
            return;
        }
        lease.runInternal(
                out -> out.writeByte(Command.COM_STMT_PREPARE.code())
                        .writeCharSequence(sql.sql(), StandardCharsets.UTF_8),
                Response.PREPARE,
                (response, failed) -> {
                    if (failed) {
                        finished(lease, index, response);
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
        lease.runInternal(
                out -> execute.write(out, BACKEND),
                Response.RESULT_SET,
                (response, failed) -> finished(lease, index, response));
    }

    private static byte[] longLe(long value) {
        byte[] out = new byte[8];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (value >>> (8 * i));
        }
        return out;
    }

    private void finished(BackendLease lease, int index, ByteBuf response) {
        lease.afterResponse(lease.current().relay().statusFlags(), false);
        done(index, response.retain());
    }

    private ByteBuf error(ErrPacket error) {
        return session.frame(1, error::write);
    }

    private void done(int index, ByteBuf response) {
        if (aborted) {
            response.release();
            return;
        }
        responses[index] = response;
        if (--pending > 0) {
            return;
        }
        ByteBuf answer;
        try {
            MergeSpec merge = plan.merge();
            answer = ShardResultMerger.merge(
                    session.client().alloc(),
                    Arrays.asList(responses),
                    merge,
                    limit(merge.offset(), -1),
                    limit(merge.count(), -1),
                    parameters != null,
                    (session.capabilities().flags() & CapabilityFlags.CLIENT_DEPRECATE_EOF) != 0,
                    session.leases().statusFlags());
        } catch (MergeException e) {
            answer =
                    error(Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "cannot merge the shards' results: " + e.getMessage()));
        } finally {
            releaseResponses();
        }
        long generated = values.firstGeneratedKey();
        if (generated != 0 && GeneratedInsertOk.isOk(answer)) {
            answer = GeneratedInsertOk.withInsertIdAndRelease(session.client().alloc(), answer, generated);
            session.lastInsertId().generated(generated);
        }
        session.finishRouted(answer);
    }

    private long limit(int slot, long absent) {
        if (slot < 0) {
            return absent;
        }
        Long value = KeyValues.toInteger(values.scalar(slot));
        return value == null ? absent : value;
    }

    /** The session closed before every response came: drop what was collected. */
    private void abort() {
        aborted = true;
        releaseResponses();
    }

    private void releaseResponses() {
        for (int i = 0; i < responses.length; i++) {
            if (responses[i] != null) {
                responses[i].release();
                responses[i] = null;
            }
        }
    }
}
