package io.shardgate.router.execute;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.Xid;
import io.shardgate.sharding.plan.StatementKind;
import java.util.ArrayList;
import java.util.List;

/**
 * How a write that runs on several hostgroups is made all-or-nothing, as one MySQL statement is: a
 * statement that fails on one shard must leave no effect on the others (a multi-row INSERT whose
 * third row is a duplicate key inserts nothing).
 * <ul>
 *   <li>{@link #NONE}: reads, DDL (not transactional in MySQL either) and single-hostgroup
 *       statements, which the server keeps atomic itself;
 *   <li>{@link #TRANSACTION}: an autocommit statement runs inside START TRANSACTION on each shard,
 *       then COMMIT everywhere if every shard succeeded, else ROLLBACK everywhere;
 *   <li>{@link #SAVEPOINT}: inside the session's transaction (or with autocommit off) a savepoint
 *       is set on each shard first; a failure rolls every shard back to it, the rest of the
 *       transaction stays, as MySQL rolls back just the failed statement (inside a two_phase
 *       transaction too: MariaDB keeps savepoints inside an XA branch);
 *   <li>{@link #XA}: an autocommit statement in a two_phase schema: START TRANSACTION on its first
 *       shard (the metadata manager, see {@link io.shardgate.router.twophase.Xid}), XA START on each
 *       other, then two-phase commit ({@link XaCommit}) if every shard succeeded, else a rollback
 *       everywhere.
 * </ul>
 * With {@link #TRANSACTION}, COMMITs on several shards are not atomic with each other: a shard
 * that fails its COMMIT after another committed leaves the statement half applied, and the client
 * gets that shard's error. {@link #XA} closes that window. Tables of non-transactional engines (MyISAM) keep
 * what each shard wrote before the failure, as they do on one server.
 */
enum StatementAtomicity {
    NONE,
    TRANSACTION,
    SAVEPOINT,
    XA;

    /** The name of the router's savepoint; a client savepoint of the same name would be moved by it. */
    static final String SAVEPOINT_NAME = "shardgate_statement";

    static final String BEGIN = "START TRANSACTION";
    static final String COMMIT = "COMMIT";
    static final String ROLLBACK = "ROLLBACK";
    static final String SET_SAVEPOINT = "SAVEPOINT " + SAVEPOINT_NAME;
    static final String ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO SAVEPOINT " + SAVEPOINT_NAME;

    /**
     * @param kind the statement's family as planned
     * @param targets how many hostgroups it runs on
     * @param inTransaction the session has a transaction open or declared
     * @param sessionStatus the session's server status flags (autocommit off counts as a transaction)
     * @param twoPhase the schema's transaction_mode is two_phase
     */
    static StatementAtomicity of(
            StatementKind kind, int targets, boolean inTransaction, int sessionStatus, boolean twoPhase) {
        boolean writes = kind == StatementKind.INSERT || kind == StatementKind.UPDATE || kind == StatementKind.DELETE;
        if (!writes || targets < 2) {
            return NONE;
        }
        boolean transaction = inTransaction
                || (sessionStatus & ServerStatus.SERVER_STATUS_IN_TRANS) != 0
                || (sessionStatus & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0;
        return transaction ? SAVEPOINT : twoPhase ? XA : TRANSACTION;
    }

    /** What runs on each shard before the statement, after its connection (and the session's BEGIN). */
    String before() {
        return this == SAVEPOINT ? SET_SAVEPOINT : null;
    }

    /**
     * What the shard's connection runs first when it has no transaction open: the session's own
     * steps ({@code sessionBegin}: its BEGIN and savepoints, null outside a transaction), the
     * statement's START TRANSACTION, or with {@link #XA} START TRANSACTION on {@code xid}'s manager
     * (after creating the {@code decisions} table there the first time) and XA START of its branch
     * on any other {@code hostgroup}.
     */
    List<String> begin(List<String> sessionBegin, Xid xid, int hostgroup, DecisionTable decisions) {
        return switch (this) {
            case TRANSACTION -> List.of(BEGIN);
            case XA -> {
                if (xid.manager() != hostgroup) {
                    yield List.of("XA START " + xid.sql(hostgroup));
                }
                List<String> steps = new ArrayList<>(decisions.beforeManagerBegin(hostgroup));
                steps.add(BEGIN);
                yield steps;
            }
            default -> sessionBegin;
        };
    }

    /** What ends the statement on each shard it ran on, by whether any shard failed; null for nothing. */
    String after(boolean anyFailed) {
        return switch (this) {
            case NONE, XA -> null; // XA: XaCommit ends it
            case TRANSACTION -> anyFailed ? ROLLBACK : COMMIT;
            case SAVEPOINT -> anyFailed ? ROLLBACK_TO_SAVEPOINT : null;
        };
    }
}
