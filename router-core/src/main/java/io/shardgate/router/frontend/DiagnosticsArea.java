package io.shardgate.router.frontend;

import io.shardgate.router.session.DiagnosticsEffect;

/**
 * Whose diagnostics area is the client session's after a statement ended on one of its backend
 * connections, as far as the other connections and the "unknown" state go (the connection that ran
 * the statement settles its own hold with {@link io.shardgate.router.lease.DiagnosticsHold}). In
 * MariaDB a statement replaces the area when it raises a condition or uses a table, and leaves it
 * otherwise; so a statement that raised nothing and certainly uses no table leaves the earlier
 * warnings where they are — on another connection, or nowhere the router can read — and one the
 * router cannot tell about makes the area unknown, so that SHOW WARNINGS is refused (ERROR 1235)
 * rather than answered from the wrong server session.
 */
final class DiagnosticsArea {
    private DiagnosticsArea() {}

    /** What becomes of the area the session had before the statement. */
    enum Outcome {
        /** It is still the session's: held by the connection that held it, or unknown as it was. */
        UNCHANGED,
        /** It is the statement's, on the connection that ran it: other connections' holds end. */
        STATEMENTS,
        /** Nobody knows whether it is still the earlier one: the session's diagnostics are lost. */
        UNKNOWN
    }

    /**
     * @param heldElsewhere another connection of the session holds the earlier warnings or error
     * @param raised the statement's response carried an error or a warning count above 0
     * @param effect what the statement does to the area when it raises nothing
     */
    static Outcome after(boolean heldElsewhere, boolean raised, DiagnosticsEffect effect) {
        if (raised || effect == DiagnosticsEffect.CLEARS) {
            return Outcome.STATEMENTS;
        }
        if (effect == DiagnosticsEffect.READS || effect == DiagnosticsEffect.KEEPS || !heldElsewhere) {
            // an unsure statement that raised nothing leaves an empty area empty, and an unknown
            // one unknown: only a holder elsewhere may now hold something MariaDB would not show
            return Outcome.UNCHANGED;
        }
        return Outcome.UNKNOWN;
    }
}
