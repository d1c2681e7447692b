package io.shardgate.router.frontend;

import io.shardgate.router.backend.BackendThread;
import java.util.List;

/**
 * A snapshot of one client session for the admin interface and {@code SHOW PROCESSLIST}: who it
 * is, what it runs, and whether it holds backend connections, and why (multiplexing diagnosis).
 *
 * @param connectionId the id the client sees (its handshake's, CONNECTION_ID()'s and KILL's)
 * @param user the logged-in user
 * @param schema the current schema, or null
 * @param client the client's address
 * @param pinned true when the session keeps a backend connection between statements
 * @param pinReasons why, in words ("open transaction", "user variable used"...)
 * @param backendConnections backend connections it holds right now
 * @param command what it does, as PROCESSLIST's Command column names it ("Sleep", "Query"...)
 * @param seconds how long it has been doing that
 * @param info the statement text in flight, or null
 * @param commandSerial which command of the session this is (tells whether it is still the same later)
 * @param running the server threads running it right now (several for a scatter), in the session's
 *     lease order
 */
public record SessionInfo(
        int connectionId,
        String user,
        String schema,
        String client,
        boolean pinned,
        List<String> pinReasons,
        int backendConnections,
        String command,
        long seconds,
        String info,
        long commandSerial,
        List<BackendThread> running) {

    /** A session idle since it logged in. */
    public SessionInfo(
            int connectionId,
            String user,
            String schema,
            String client,
            boolean pinned,
            List<String> pinReasons,
            int backendConnections) {
        this(
                connectionId,
                user,
                schema,
                client,
                pinned,
                pinReasons,
                backendConnections,
                "Sleep",
                0,
                null,
                0,
                List.of());
    }
}
