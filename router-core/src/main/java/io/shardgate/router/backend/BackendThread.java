package io.shardgate.router.backend;

import io.shardgate.router.config.BackendAddress;

/**
 * A server thread running a client session's statement right now, and how the router reaches that
 * server on a connection of its own (to KILL the thread, or to read its process-list row).
 *
 * @param connector opens the connection
 * @param address the server
 * @param login the router's own account for that server's hostgroup
 * @param threadId the server's id of the thread (its handshake's connection id)
 */
public record BackendThread(BackendConnector connector, BackendAddress address, BackendLogin login, long threadId) {}
