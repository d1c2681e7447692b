package io.shardgate.router.routing;

import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.RenderedSql;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.StatementKind;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.Role;
import java.util.List;
import java.util.Map;

/**
 * Where a client's text statement goes, as {@link StatementRouter} decides it: answered by the
 * router itself, refused, run on one hostgroup, run on several and merged, or a session statement
 * (BEGIN, COMMIT, SET...) with its transaction bookkeeping. Immutable; an executor carries it out.
 */
public sealed interface Decision
        permits Decision.Refuse,
                Decision.Explain,
                Decision.ValueRow,
                Decision.Single,
                Decision.Scatter,
                Decision.OnHome,
                Decision.LockEverywhere,
                Decision.UnlockEverywhere,
                Decision.DeclareTransaction,
                Decision.EndUnopened,
                Decision.EndTransaction,
                Decision.EndEverywhere {

    /** Answered with ERR {@code code}, SQL state {@code sqlState} and {@code message}; no backend sees it. */
    record Refuse(int code, String sqlState, String message) implements Decision {
        /** {@code code} with a message of the router's rather than MySQL's template. */
        public static Refuse of(ErrorCode code, String message) {
            return new Refuse(code.code(), code.sqlState(), message);
        }

        /** ER_NOT_SUPPORTED_YET: "This version of Shardgate doesn't yet support '...'". */
        public static Refuse notSupported(String what) {
            return of(ErrorCode.ER_NOT_SUPPORTED_YET, "This version of Shardgate doesn't yet support '" + what + "'");
        }

        /** The planner's refusal: ER_NOT_SUPPORTED_YET in the router's wording, any other code as it is. */
        public static Refuse of(Route.Refuse refuse) {
            return refuse.code() == ErrorCode.ER_NOT_SUPPORTED_YET
                    ? notSupported(refuse.reason())
                    : of(refuse.code(), refuse.reason());
        }
    }

    /** {@code EXPLAIN SHARDGATE <statement>}: the router answers with the plan of {@code statement}. */
    record Explain(String statement) implements Decision {}

    /**
     * One row of one integer the router knows and the backends do not: {@code SELECT
     * LAST_INSERT_ID()} after a key it generated, {@code SELECT ROW_COUNT()} after a merge.
     */
    record ValueRow(String column, long value) implements Decision {}

    /**
     * Runs on one hostgroup, its writer or (by the read/write split) a reader.
     *
     * @param rewritten the SQL the plan renders for that hostgroup, or null: the client's packet as it is
     * @param kind the statement's family as planned, or null when no plan was made (a query rule's
     *     destination): it then runs on the writer
     * @param role the planner's role, overridden by a query rule's
     * @param multiplexOff a query rule turns multiplexing off: the session keeps the connection
     * @param reads it changes no data, so it may run again if its connection is lost unanswered
     */
    record Single(
            int hostgroup, RenderedSql rewritten, StatementKind kind, Role role, boolean multiplexOff, boolean reads)
            implements Decision {}

    /** Runs on each of {@code targets} with the SQL {@code plan} renders for it; the results are merged. */
    record Scatter(Plan plan, Targets targets, Values values) implements Decision {
        /** A write: each target's read-your-writes window starts. */
        public boolean writes() {
            return plan.kind() != StatementKind.SELECT;
        }
    }

    /**
     * A session statement (SET, USE, LOCK...) runs as it is on the home hostgroup: tracked variables
     * reach other hostgroups by alignment when they are used.
     *
     * @param beginsTransaction it is a BEGIN / START TRANSACTION that must run now (see {@link
     *     DeclareTransaction}): once sent, the session's transaction is open
     */
    record OnHome(boolean beginsTransaction) implements Decision {}

    /**
     * LOCK TABLES naming tables of several hostgroups: each runs its own statement ({@link
     * TableLocks}), in hostgroup order, on the session's connection there, which stays pinned.
     */
    record LockEverywhere(Map<Integer, String> statements) implements Decision {
        /**
         * Kept in hostgroup order (a sorted map: {@code Map.copyOf} iterates in an order that changes
         * with each JVM start): every session of every router locks the shards one after another in
         * that one order, so two of them cannot wait for each other's locks on two shards.
         */
        public LockEverywhere {
            statements = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(statements));
        }
    }

    /** UNLOCK TABLES while the session holds connections to several hostgroups: sent to each. */
    record UnlockEverywhere(List<Integer> hostgroups) implements Decision {
        public UnlockEverywhere {
            hostgroups = List.copyOf(hostgroups);
        }
    }

    /**
     * A plain BEGIN the router answers itself: it runs on each hostgroup as the setup step of the
     * transaction's first statement there, so a transaction on one shard begins and ends there only.
     *
     * @param readOnly START TRANSACTION READ ONLY: the OK says so
     */
    record DeclareTransaction(boolean readOnly) implements Decision {}

    /** COMMIT / ROLLBACK of a transaction only the router declared: nothing to end on any backend. */
    record EndUnopened() implements Decision {}

    /**
     * COMMIT, ROLLBACK, SAVEPOINT or RELEASE runs on {@code hostgroup} alone: the home one, or the
     * one other hostgroup the transaction reached. Read-your-writes counts from its end there and on
     * the home hostgroup.
     */
    record EndTransaction(int hostgroup) implements Decision {}

    /**
     * COMMIT, ROLLBACK, SAVEPOINT or RELEASE of a transaction that reached several hostgroups: sent
     * to each of {@code hostgroups} (in the order the session used them, the home one last), the
     * answers combined. Read-your-writes counts from its end on each and on the home hostgroup.
     */
    record EndEverywhere(List<Integer> hostgroups) implements Decision {
        public EndEverywhere {
            hostgroups = List.copyOf(hostgroups);
        }
    }
}
