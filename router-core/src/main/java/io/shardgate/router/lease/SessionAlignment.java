package io.shardgate.router.lease;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.session.SessionVariables;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The commands that bring a borrowed connection's server session to the state a client session
 * asked for (SET replay): clear another session's diagnostics, reset when the connection's
 * assignments are not a prefix of the wanted ones, give the server session the client session's
 * LAST_INSERT_ID() when the statement may read it, change the schema, then the missing assignments — one SET for all of them, except SET SESSION
 * TRANSACTION, which cannot share one.
 * A pure function of the two states; {@link BackendLease} sends the steps one after the other.
 *
 * @param steps the commands to send, in order; empty when the states already match
 * @param reset the first steps reset the server session (its prepared statements are gone)
 */
record SessionAlignment(List<Step> steps, boolean reset) {

    /** One command of the router's own: {@code command} with {@code text} (null: none) as its payload. */
    record Step(Command command, String text) {
        static Step query(String sql) {
            return new Step(Command.COM_QUERY, sql);
        }

        /** Writes the command's payload (command byte, text) to {@code out}. */
        void write(ByteBuf out) {
            out.writeByte(command.code());
            if (text != null) {
                out.writeCharSequence(text, StandardCharsets.UTF_8);
            }
        }

        @Override
        public String toString() {
            return text == null ? command.name() : command.name() + " " + text;
        }
    }

    /** {@link #of(SessionVariables, SessionVariables, boolean, long)}'s value for: leave LAST_INSERT_ID() as it is. */
    static final long KEEP_LAST_INSERT_ID = -1;

    /** As {@link #of(SessionVariables, SessionVariables, boolean, long)}, leaving LAST_INSERT_ID() as it is. */
    static SessionAlignment of(SessionVariables actual, SessionVariables desired, boolean clearDiagnostics) {
        return of(actual, desired, clearDiagnostics, KEEP_LAST_INSERT_ID);
    }

    /**
     * Sets a server session's LAST_INSERT_ID() to {@code value} (read as unsigned), with no result
     * and no warning: what the client session's statement reads there (and keeps, if the statement
     * inserts no generated key).
     */
    static String setLastInsertId(long value) {
        return "DO LAST_INSERT_ID(" + Long.toUnsignedString(value) + ")";
    }

    /**
     * The steps from {@code actual} to {@code desired}; {@code clearDiagnostics}: the connection's
     * diagnostics area holds another session's warnings, which would pass for this one's; {@code
     * lastInsertId}: the client session's LAST_INSERT_ID(), which the server session does not hold
     * (an unsigned value; {@link #KEEP_LAST_INSERT_ID}: nothing to set). A reset sets it to 0.
     */
    static SessionAlignment of(
            SessionVariables actual, SessionVariables desired, boolean clearDiagnostics, long lastInsertId) {
        return of(actual, desired, clearDiagnostics, lastInsertId, false);
    }

    /**
     * As {@link #of(SessionVariables, SessionVariables, boolean, long)}; {@code keepSession}: the
     * server session holds what a reset would lose (the client session's transaction, temporary
     * tables, locks, user variables...), so the assignments are replayed over it instead ({@link
     * SessionVariables#replayOver}), or, where no replay can reach {@code desired}, null: the
     * statement must not run there.
     */
    static SessionAlignment of(
            SessionVariables actual,
            SessionVariables desired,
            boolean clearDiagnostics,
            long lastInsertId,
            boolean keepSession) {
        List<Step> steps = new ArrayList<>(4);
        if (clearDiagnostics) {
            steps.add(Step.query(DiagnosticsHold.CLEAR));
        }
        List<String> missing = desired.missingFrom(actual);
        if (missing == null && keepSession) {
            missing = desired.replayOver(actual);
            if (missing == null) {
                return null;
            }
        }
        boolean reset = missing == null;
        if (reset) {
            steps.add(new Step(Command.COM_RESET_CONNECTION, null));
            missing = List.copyOf(desired.fragments().values());
        }
        if (lastInsertId != KEEP_LAST_INSERT_ID && !(reset && lastInsertId == 0)) {
            steps.add(Step.query(setLastInsertId(lastInsertId)));
        }
        if (desired.schema() != null && (!desired.schema().equals(actual.schema()) || reset)) {
            steps.add(new Step(Command.COM_INIT_DB, desired.schema()));
        }
        StringBuilder assignments = new StringBuilder();
        for (String fragment : missing) {
            if (fragment.regionMatches(true, 0, "SESSION TRANSACTION", 0, 19)) {
                steps.add(Step.query("SET " + fragment)); // cannot share a SET with other assignments
            } else {
                assignments.append(assignments.length() == 0 ? "SET " : ", ").append(fragment);
            }
        }
        if (assignments.length() > 0) {
            steps.add(Step.query(assignments.toString()));
        }
        return new SessionAlignment(steps, reset);
    }
}
