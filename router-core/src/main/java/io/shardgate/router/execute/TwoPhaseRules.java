package io.shardgate.router.execute;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.routing.Errors;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.TransactionMode;

/**
 * Which transactions of a two_phase schema run as XA, and which it refuses because their
 * atomicity across shards could not be kept (pure functions, plus thin readers of the session).
 */
final class TwoPhaseRules {
    private TwoPhaseRules() {}

    /** The transaction_mode of the session's schema (best_effort without one). */
    static TransactionMode mode(SessionPort session) {
        SchemaRule schema =
                session.services().routing().current().schema(session.desired().schema());
        return schema == null ? TransactionMode.BEST_EFFORT : schema.transactionMode();
    }

    /** Whether the session's schema commits its multi-shard writes with two-phase commit. */
    static boolean twoPhase(SessionPort session) {
        return mode(session) == TransactionMode.TWO_PHASE;
    }

    /**
     * How a COMMIT / ROLLBACK form ends an XA transaction: true commit, false rollback, null for
     * a savepoint statement (run as it is: MariaDB keeps savepoints inside XA) or a form XA has no
     * equivalent of (AND CHAIN, RELEASE), which {@link #endRefusal} names.
     */
    static Boolean xaEnd(String digestText) {
        return switch (digestText.toUpperCase(java.util.Locale.ROOT)) {
            case "COMMIT", "COMMIT WORK" -> Boolean.TRUE;
            case "ROLLBACK", "ROLLBACK WORK" -> Boolean.FALSE;
            default -> null;
        };
    }

    /** Why an end of an XA transaction is refused, or null (a plain COMMIT / ROLLBACK, or a savepoint statement). */
    static String endRefusal(String digestText) {
        String upper = digestText.toUpperCase(java.util.Locale.ROOT);
        if (xaEnd(digestText) != null || !(upper.startsWith("COMMIT") || upper.startsWith("ROLLBACK"))) {
            return null;
        }
        if (upper.startsWith("ROLLBACK") && upper.contains(" TO ")) {
            return null; // ROLLBACK TO SAVEPOINT
        }
        return "COMMIT / ROLLBACK with AND CHAIN or RELEASE in a two_phase transaction: use COMMIT (or ROLLBACK)"
                + " and BEGIN";
    }

    /**
     * Whether a transaction begun by a BEGIN the router answers runs as XA: in a two_phase schema,
     * unless it is READ ONLY (it cannot write, so there is nothing to commit atomically).
     */
    static boolean usesXa(TransactionMode mode, boolean readOnly) {
        return mode == TransactionMode.TWO_PHASE && !readOnly;
    }

    /**
     * Why a BEGIN the router must send as written (WITH CONSISTENT SNAPSHOT, or a BEGIN while
     * something is open) is refused in a two_phase schema, or null: XA START takes no options, and
     * a plain transaction could write on several shards without two-phase commit.
     */
    static String beginRefusal(TransactionMode mode, boolean readOnly) {
        if (mode != TransactionMode.TWO_PHASE || readOnly) {
            return null;
        }
        return "START TRANSACTION with options other than READ ONLY / READ WRITE, or a BEGIN inside an open"
                + " transaction or LOCK TABLES, in a two_phase schema (its transactions run as XA, which takes"
                + " no options): COMMIT first, and use BEGIN";
    }

    /**
     * Why a write is refused in a two_phase schema with autocommit off and no explicit transaction,
     * or null: the server begins a transaction on each shard by itself, which XA cannot join; a
     * write that would have transactions open on two or more hostgroups could not commit
     * atomically. {@code openElsewhere}: hostgroups other than the statement's with one open.
     */
    static String autocommitOffRefusal(
            TransactionMode mode, int sessionStatus, boolean explicitTransaction, int targets, int openElsewhere) {
        boolean autocommitOff = (sessionStatus & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0;
        if (mode != TransactionMode.TWO_PHASE || !autocommitOff || explicitTransaction) {
            return null;
        }
        if (targets + openElsewhere < 2) {
            return null;
        }
        return "a write reaching a second shard with autocommit off in a two_phase schema (the transaction"
                + " would not commit atomically): use autocommit=1 with BEGIN ... COMMIT";
    }

    /**
     * Whether ending the branches on {@code hostgroups} needs two-phase commit: only when two or
     * more of them may have written. A branch that ran only reads ({@code readOnly}) commits with
     * XA COMMIT ... ONE PHASE before the one writer does, and has nothing a failure could undo.
     */
    static boolean needsTwoPhase(java.util.List<Integer> hostgroups, java.util.Set<Integer> readOnly) {
        int writers = 0;
        for (int hostgroup : hostgroups) {
            if (!readOnly.contains(hostgroup)) {
                writers++;
            }
        }
        return writers >= 2;
    }

    /** The error of a two_phase transaction while this router has no xid epoch from ZooKeeper. */
    static ErrPacket noEpoch() {
        return Errors.notSupported("a transaction on several shards in a two_phase schema while this router has"
                + " not reached ZooKeeper (its xid epoch comes from there)");
    }
}
