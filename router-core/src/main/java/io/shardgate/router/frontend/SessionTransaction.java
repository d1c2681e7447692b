package io.shardgate.router.frontend;

/**
 * A client session's explicit transaction as the router tracks it: the START TRANSACTION / BEGIN
 * text, replayed on each hostgroup the transaction spreads to, and whether a backend has run it.
 * A plain BEGIN is answered by the router ({@link DeferredBegin}) and reaches each hostgroup with
 * the session's first statement there (a transaction on one shard then costs one BEGIN on that
 * shard, not one on the home hostgroup too); until a statement has run, the transaction exists
 * only here. Event-loop confined, like its session.
 */
final class SessionTransaction {
    /** The BEGIN text of the open explicit transaction, or null. */
    private String start;
    /** Whether a backend has run {@link #start}. */
    private boolean opened;

    /** The BEGIN text of the open explicit transaction, replayed where it spreads; null outside one. */
    String start() {
        return start;
    }

    /** An explicit START TRANSACTION / BEGIN runs on the home hostgroup: spread it where statements go. */
    void started(String sql) {
        start = sql;
        opened = true;
    }

    /** A plain BEGIN answered by the router: {@code sql} runs on each hostgroup before the session's first statement there. */
    void declared(String sql) {
        start = sql;
        opened = false;
    }

    /** Whether the BEGIN was answered by the router and no backend has begun it yet. */
    boolean onlyDeclared() {
        return start != null && !opened;
    }

    /** Whether a backend runs the transaction: it ends with the last connection that has it open. */
    boolean opened() {
        return start != null && opened;
    }

    /** A statement of the transaction got its connection, with the BEGIN run there if it was needed. */
    void reached() {
        if (start != null && !opened) {
            opened = true;
        }
    }

    /** The transaction is over (committed, rolled back, or ended by a reset). */
    void end() {
        start = null;
        opened = false;
    }
}
