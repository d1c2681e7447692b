package io.shardgate.router.frontend;

import io.shardgate.router.metrics.QueryDigestStats;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.sharding.digest.Digest;

/**
 * The COM_QUERY or COM_STMT_EXECUTE a session has in flight, timed from its dispatch to the end of
 * its answer and then recorded in the router's statement metrics and per-digest table. Commands
 * that are not statements (COM_PING, COM_INIT_DB...) are not timed. Event-loop confined.
 */
public final class StatementRecorder {
    private final RouterMetrics metrics;
    /** The statement in flight; null when none is being timed. */
    private Digest digest;

    private String schema;
    private int hostgroup;
    private long start;
    /** The statement in flight is a COM_STMT_EXECUTE (else a COM_QUERY). */
    private boolean prepared;

    public StatementRecorder(RouterMetrics metrics) {
        this.metrics = metrics;
    }

    /** A COM_QUERY or COM_STMT_EXECUTE of shape {@code digest} starts (timed until its answer ends). */
    public void started(String schema, Digest digest, boolean prepared) {
        this.digest = digest;
        this.prepared = prepared;
        this.schema = schema;
        this.hostgroup = QueryDigestStats.SEVERAL_HOSTGROUPS;
        this.start = System.nanoTime();
    }

    /** The shape of the statement in flight, or null when none is (a command that is not a statement). */
    public Digest digest() {
        return digest;
    }

    /** The statement in flight runs on one hostgroup. */
    public void routedTo(int hostgroup) {
        this.hostgroup = hostgroup;
    }

    /** A new command arrives: whatever was timed before is not this one's. */
    void forget() {
        digest = null;
    }

    void ended(boolean error) {
        ended(error, 0, 0);
    }

    /** The statement in flight ended; {@code rowsSent} and {@code rowsAffected} as its backend answered. */
    void ended(boolean error, long rowsSent, long rowsAffected) {
        if (digest != null) {
            long nanos = System.nanoTime() - start;
            metrics.statement(hostgroup, prepared, nanos, error);
            metrics.digests()
                    .record(schema, digest.hash(), digest.text(), hostgroup, nanos, error, rowsSent, rowsAffected);
            digest = null;
        }
    }
}
