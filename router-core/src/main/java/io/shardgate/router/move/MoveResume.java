package io.shardgate.router.move;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Whether a move job that stopped on an error leaves the move to be resumed (the mover's next scan
 * runs it again from its stored checkpoints) rather than failing it: a shard's connection lost or
 * refused (a source or the target restarted, a network blip, the binary log stream cut) is not the
 * move's fault, and every phase resumes exactly from its checkpoints. Anything else (a refused
 * table, rows that keep differing) fails the move at once. A move resumes at most {@link #LIMIT}
 * times, so a shard that never comes back fails it with the last error.
 */
final class MoveResume {
    /** The mover scans every second: about a minute of a shard unreachable, over the move's life. */
    static final long LIMIT = 60;

    /** Client error codes of a connection lost or refused, and of a server shutting down. */
    private static final Set<Integer> CONNECTION_CODES = Set.of(1053, 1927, 2002, 2003, 2006, 2013);

    private MoveResume() {}

    /** Whether a job that stopped on {@code failure}, after the move resumed {@code resumedSoFar} times, resumes. */
    static boolean resumes(Throwable failure, long resumedSoFar) {
        return resumedSoFar < LIMIT && connectionLost(failure);
    }

    /** Whether {@code failure} or one of its causes says a shard's connection was lost or refused. */
    static boolean connectionLost(Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof IOException
                    || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLTransientConnectionException
                    || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException e
                    && ((e.getSQLState() != null && e.getSQLState().startsWith("08"))
                            || CONNECTION_CODES.contains(e.getErrorCode()))) {
                return true;
            }
        }
        return false;
    }
}
