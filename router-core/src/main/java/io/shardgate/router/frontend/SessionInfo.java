package io.shardgate.router.frontend;

import java.util.List;

/**
 * A snapshot of one client session for the admin interface: who it is and whether it holds
 * backend connections, and why (multiplexing diagnosis).
 *
 * @param connectionId the id the client sees (CONNECTION_ID() answers the backend's, not this)
 * @param user the logged-in user
 * @param schema the current schema, or null
 * @param client the client's address
 * @param pinned true when the session keeps a backend connection between statements
 * @param pinReasons why, in words ("open transaction", "user variable used"...)
 * @param backendConnections backend connections it holds right now
 */
public record SessionInfo(
        int connectionId,
        String user,
        String schema,
        String client,
        boolean pinned,
        List<String> pinReasons,
        int backendConnections) {}
