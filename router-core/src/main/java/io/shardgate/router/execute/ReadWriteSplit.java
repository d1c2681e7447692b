package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionLeases;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.sharding.plan.StatementKind;
import io.shardgate.sharding.rule.Role;
import java.util.Locale;

/**
 * The read/write split: whether one statement for a hostgroup may run on a reader or must run on
 * the writer. A reader serves it only when all of these hold:
 * <ul>
 *   <li>it is a SELECT the planner gives the READER role (it does not lock) or a query rule says
 *       {@code role: reader}; {@code role: writer} always wins;
 *   <li>it leaves nothing behind in the server session (no user variables, GET_LOCK, FOUND_ROWS,
 *       temporary tables...: those pin, and must live where the session's later statements go);
 *   <li>the session is outside any transaction, autocommit is on, and it holds no connection of
 *       this hostgroup (a pin, or the LAST_INSERT_ID hold after an INSERT);
 *   <li>the session did not write to this hostgroup in the last {@code read_your_writes_millis}
 *       (a replica may not have the write yet).
 * </ul>
 * Everything else, and every statement of a hostgroup without readers, runs on the writer.
 */
final class ReadWriteSplit {
    private ReadWriteSplit() {}

    /**
     * The lease to run a statement on hostgroup {@code id}, or null when no such hostgroup exists.
     *
     * @param kind the statement's family as planned, or null when unknown (runs on the writer)
     * @param role the planner's role, overridden by a query rule's {@code role}
     */
    static BackendLease lease(
            SessionPort session, int id, StatementKind kind, Role role, StatementEffects effects, boolean insert) {
        SessionLeases leases = session.leases();
        BackendLease writer = leases.get(id);
        if (writer == null) {
            return null;
        }
        if (kind != StatementKind.SELECT && kind != StatementKind.SHOW || insert) {
            writer.writing();
            return writer;
        }
        // SHOW stays on the writer: SHOW WARNINGS and friends describe that server session
        if (role != Role.READER
                || kind != StatementKind.SELECT
                || !effects.pins().isEmpty()) {
            return writer;
        }
        if (!writer.hostgroup().hasReaders()
                || writer.current() != null
                || session.transaction().start() != null
                || !leases.inTransaction(null).isEmpty()
                || autocommitOff(session.desired())
                || writer.wroteWithin(writer.hostgroup().config().readYourWritesMillis(), System.nanoTime())) {
            return writer;
        }
        return leases.reader(id);
    }

    /** True when the session set autocommit off: every statement then runs in a transaction. */
    static boolean autocommitOff(SessionVariables desired) {
        String fragment = desired.fragments().get("autocommit");
        if (fragment == null) {
            return false;
        }
        String value = fragment.substring(fragment.indexOf('=') + 1).trim().toLowerCase(Locale.ROOT);
        return value.equals("0") || value.equals("off") || value.equals("false");
    }
}
