package io.shardgate.admin.store;

/** A rule store operation that could not be carried out: ZooKeeper unreachable, cluster not seeded. */
public final class RuleStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RuleStoreException(String message) {
        super(message);
    }

    public RuleStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
