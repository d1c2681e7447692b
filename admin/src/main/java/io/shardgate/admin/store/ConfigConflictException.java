package io.shardgate.admin.store;

/**
 * A publish that lost a race: the version it was based on is no longer the cluster's current one.
 * Nothing was written; re-read the current version, re-apply the change and publish again.
 */
public final class ConfigConflictException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long basedOn;
    private final long current;

    public ConfigConflictException(long basedOn, long current) {
        super("config version conflict: the change was based on version " + basedOn + " but the cluster is at version "
                + current + "; re-read and publish again");
        this.basedOn = basedOn;
        this.current = current;
    }

    /** The version the refused change was based on. */
    public long basedOn() {
        return basedOn;
    }

    /** The cluster's version when the conflict was detected (0 when it has none). */
    public long current() {
        return current;
    }
}
