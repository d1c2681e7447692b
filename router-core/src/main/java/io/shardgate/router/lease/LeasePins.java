package io.shardgate.router.lease;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.session.PinReason;
import java.util.EnumSet;
import java.util.Set;

/**
 * Why a lease keeps its backend connection between statements (the pin policy). Pins are either
 * sticky (state only that server session has: user variables, locks, temporary tables, prepared
 * statements... until COM_RESET_CONNECTION or COM_CHANGE_USER), follow the server's status flags
 * (an open transaction, autocommit off), or hold for a while: the last statement's warnings until
 * the next statement ({@link DiagnosticsHold}), and the connection an INSERT ran on for the next
 * {@link #INSERT_ID_HOLD} statements, so a LAST_INSERT_ID() right after it reads the right server
 * session (as ProxySQL's auto_increment_delay_multiplex does; drivers that take the id from the OK
 * packet do not need it). The status flags are the caller's (the last response's); everything here
 * is a pure function of them and of what the statements did. Event-loop confined.
 */
final class LeasePins {
    /** Statements after an INSERT that keep its connection (or until the session is quiet, see {@link BackendLease}). */
    static final int INSERT_ID_HOLD = 5;

    private final EnumSet<PinReason> sticky = EnumSet.noneOf(PinReason.class);
    private int insertIdHold;
    /**
     * The last statement left warnings or an error in this connection's diagnostics area: the
     * connection stays until the next statement, so SHOW WARNINGS reads them.
     */
    private boolean diagnosticsHold;

    /** {@code multiplexing} false: the hostgroup's connections are never shared (a pin for good). */
    LeasePins(boolean multiplexing) {
        if (!multiplexing) {
            sticky.add(PinReason.MULTIPLEXING_OFF);
        }
    }

    /** True when the server session has a transaction open or autocommit off. */
    static boolean inTransaction(int status) {
        return (status & ServerStatus.SERVER_STATUS_IN_TRANS) != 0
                || (status & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0;
    }

    /** True when something keeps the connection; the allocation-free form of {@code !reasons(status).isEmpty()}. */
    boolean pinned(int status) {
        return holdsSessionState(status) || diagnosticsHold;
    }

    /**
     * True when the connection holds session state that dies with it (a transaction, variables,
     * locks...): {@link #pinned} without the diagnostics hold, whose loss only loses warnings.
     */
    boolean holdsSessionState(int status) {
        return !sticky.isEmpty() || insertIdHold > 0 || inTransaction(status);
    }

    /** Why the session holds its connection (for diagnosis); empty when it returns it after each statement. */
    Set<PinReason> reasons(int status) {
        EnumSet<PinReason> all = sticky.clone();
        if ((status & ServerStatus.SERVER_STATUS_IN_TRANS) != 0) {
            all.add(PinReason.TRANSACTION);
        }
        if ((status & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0) {
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
        sticky.addAll(reasons);
    }

    void unpin(PinReason reason) {
        sticky.remove(reason);
    }

    /** COM_RESET_CONNECTION or COM_CHANGE_USER: the server session starts over. */
    void clearSticky() {
        boolean off = sticky.contains(PinReason.MULTIPLEXING_OFF);
        sticky.clear();
        if (off) {
            sticky.add(PinReason.MULTIPLEXING_OFF);
        }
        insertIdHold = 0;
        diagnosticsHold = false;
    }

    /** True when nothing but the hostgroup's own setting pins: the connection may go back clean. */
    boolean onlyConfigured() {
        return sticky.stream().allMatch(p -> p == PinReason.MULTIPLEXING_OFF);
    }

    boolean holdsDiagnostics() {
        return diagnosticsHold;
    }

    void holdDiagnostics(boolean hold) {
        diagnosticsHold = hold;
    }

    /** A statement ended: an INSERT starts the LAST_INSERT_ID() hold, any other counts it down. */
    void statementEnded(boolean insert) {
        if (insert) {
            insertIdHold = INSERT_ID_HOLD;
        } else if (insertIdHold > 0) {
            insertIdHold--;
        }
    }

    boolean holdsInsertId() {
        return insertIdHold > 0;
    }

    /** The session stayed quiet after its INSERT: the hold ends early. */
    void endInsertIdHold() {
        insertIdHold = 0;
    }
}
