package io.shardgate.router.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardgate.admin.store.ConfigDocuments;
import java.util.OptionalLong;

/** Where {@code shardgate admin} reads and publishes a cluster's configuration: a router's HTTP API or ZooKeeper. */
interface ClusterEndpoint extends AutoCloseable {
    /** An answer: the HTTP-like status and its JSON body (the {@code /api/...} shapes). */
    record Answer(int status, JsonNode body) {}

    /** The current version: {@code {"version": N, "documents": {...}}}. */
    Answer config() throws Exception;

    /** The served version, ZooKeeper connection, last refusal, live routers. */
    Answer status() throws Exception;

    /** Validates and publishes; 200 with the new version, 400 problems, 409 conflict, 503 unreachable. */
    Answer publish(OptionalLong basedOn, ConfigDocuments documents) throws Exception;

    /**
     * A request to the moves' routes ({@code /api/moves...}, docs/moves.md); only a router runs
     * moves, so only the HTTP endpoint answers.
     */
    default Answer moves(String method, String path, JsonNode body) throws Exception {
        throw new IllegalStateException("moves are run by the routers: give a router's HTTP endpoint with --url");
    }

    @Override
    default void close() {}
}
