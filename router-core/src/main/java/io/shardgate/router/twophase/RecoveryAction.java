package io.shardgate.router.twophase;

/**
 * What a resolver does with a prepared Shardgate branch it found on a shard ({@code XA RECOVER}),
 * the recovery decision table:
 *
 * <table>
 *   <tr><th>decision logged</th><th>owner router</th><th>action</th></tr>
 *   <tr><td>commit</td><td>gone, or the decision is older than the grace period</td><td>{@link #COMMIT}</td></tr>
 *   <tr><td>commit</td><td>alive, decision recent</td><td>{@link #WAIT}: the owner is committing it</td></tr>
 *   <tr><td>rollback</td><td>any</td><td>{@link #ROLLBACK}</td></tr>
 *   <tr><td>none</td><td>alive, branch prepared for less than the stuck limit</td><td>{@link #WAIT}: the owner may still be preparing</td></tr>
 *   <tr><td>none</td><td>alive, branch prepared longer</td><td>{@link #CLAIM_ROLLBACK}: its owner lost it</td></tr>
 *   <tr><td>none</td><td>gone</td><td>{@link #CLAIM_ROLLBACK}: log a rollback, then roll back</td></tr>
 * </table>
 *
 * "Owner alive" is the owner's ephemeral node in ZooKeeper (see {@link TransactionLog}), not an age
 * threshold: a slow PREPARE on a loaded shard can take any time, and rolling back a branch whose
 * owner then logs a commit would break atomicity. That race is closed anyway: the owner logs its
 * commit and a resolver its rollback by creating the same node, so only one of them can win; the
 * liveness check only keeps resolvers from aborting work in progress. The stuck limit (minutes, far
 * beyond any PREPARE-to-decision time) covers an owner that is alive but forgot the transaction
 * (its client session closed while the decision could not be logged).
 */
public enum RecoveryAction {
    COMMIT,
    ROLLBACK,
    /** No decision and the owner is gone: create the rollback decision (if a commit won, commit). */
    CLAIM_ROLLBACK,
    WAIT;

    /**
     * @param logged the decision in the log, or null when there is none
     * @param ownerAlive the router that began the transaction is registered
     * @param decisionAgeMillis how long ago the decision was logged (ignored without one)
     * @param graceMillis how long an owner has to finish committing before a resolver helps
     * @param preparedMillis how long the resolvers have seen the branch prepared
     * @param stuckMillis how long a branch without a decision may stay prepared under a live owner
     */
    public static RecoveryAction of(
            Outcome logged,
            boolean ownerAlive,
            long decisionAgeMillis,
            long graceMillis,
            long preparedMillis,
            long stuckMillis) {
        if (logged == Outcome.ROLLBACK) {
            return ROLLBACK;
        }
        if (logged == Outcome.COMMIT) {
            return ownerAlive && decisionAgeMillis < graceMillis ? WAIT : COMMIT;
        }
        return ownerAlive && preparedMillis < stuckMillis ? WAIT : CLAIM_ROLLBACK;
    }
}
