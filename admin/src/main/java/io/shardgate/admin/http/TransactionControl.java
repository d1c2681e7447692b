package io.shardgate.admin.http;

import java.util.List;
import java.util.Map;

/**
 * The router's two-phase commit resolver as operators reach it over HTTP: the in-doubt
 * transactions and their resolution by hand. Called from the HTTP threads; may block (it runs XA
 * statements on the shards), never on a data-path event loop.
 */
public interface TransactionControl {
    /** The prepared branches the last resolver pass left, one map of column to value each. */
    List<Map<String, Object>> inDoubt();

    /**
     * Logs {@code outcome} ({@code commit} or {@code rollback}) for transaction {@code xid} and
     * applies it on every shard; returns the branches resolved.
     *
     * @throws IllegalArgumentException for a malformed xid or outcome
     * @throws IllegalStateException when the other outcome is logged already
     */
    int resolve(String xid, String outcome) throws Exception;
}
