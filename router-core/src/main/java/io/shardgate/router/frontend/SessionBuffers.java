package io.shardgate.router.frontend;

/**
 * What one client session holds in memory for a client that does not keep up, and whether the
 * router is applying backpressure: the operator's (and the tests') view of the per-session bound.
 *
 * @param connectionId the id the client sees
 * @param pendingClientBytes bytes written to the client but not yet taken by its socket
 * @param readingClient whether the router reads the client's socket (autoRead)
 * @param queuedCommands commands read but waiting for the one in flight (pipelining)
 * @param readingBackend whether the backend connection relaying to this client is read, or null
 *     when none is relaying
 */
public record SessionBuffers(
        int connectionId, long pendingClientBytes, boolean readingClient, int queuedCommands, Boolean readingBackend) {}
