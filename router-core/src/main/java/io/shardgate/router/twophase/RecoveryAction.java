package io.shardgate.router.twophase;

/**
 * What a resolver does with a prepared Shardgate branch it found on a shard ({@code XA RECOVER}),
 * by the decision row on the transaction's metadata manager ({@link DecisionTable}):
 *
 * <table>
 *   <tr><th>decision row</th><th>owner router</th><th>action</th></tr>
 *   <tr><td>commit</td><td>gone, or the branch prepared for the grace period</td><td>{@link #COMMIT}</td></tr>
 *   <tr><td>commit</td><td>alive, branch prepared recently</td><td>{@link #WAIT}: the owner is committing it</td></tr>
 *   <tr><td>rollback</td><td>any</td><td>{@link #ROLLBACK}</td></tr>
 *   <tr><td>none</td><td>alive, branch prepared recently</td><td>{@link #WAIT}: the owner may be between PREPARE and its manager's commit</td></tr>
 *   <tr><td>none</td><td>gone, or the branch prepared for the grace period</td><td>{@link #FENCE}: insert a rollback row, then act by {@link #afterFence}</td></tr>
 * </table>
 *
 * The fence is what makes this safe whatever the timing: the manager's commit row and the fence's
 * rollback row have the same primary key, so exactly one of them exists. "Owner alive" (its
 * ephemeral node in ZooKeeper, see {@link RouterEpochs}) and the grace period only keep a
 * resolver from aborting a commit that is in progress.
 */
public enum RecoveryAction {
    COMMIT,
    ROLLBACK,
    /** No decision: insert a rollback row on the manager (autocommit, short lock wait). */
    FENCE,
    /** Nothing this pass. */
    WAIT;

    /** What a fence's INSERT of the rollback row got. */
    public enum Fence {
        /** The rollback row is in: the manager's commit can no longer happen. */
        INSERTED,
        /** A row was there (or came while the INSERT waited for the manager's lock): read it again. */
        DUPLICATE,
        /** The manager's transaction held the row past the lock wait timeout: try next pass. */
        LOCK_WAIT,
        /** Any other error, or the manager did not answer. */
        FAILED
    }

    /**
     * @param row the decision row on the manager, or null when there is none
     * @param ownerAlive the router that began the transaction is registered
     * @param preparedMillis how long the resolvers have seen the branch prepared
     * @param graceMillis how long an owner has to finish its commit before a resolver acts
     */
    public static RecoveryAction of(Outcome row, boolean ownerAlive, long preparedMillis, long graceMillis) {
        if (row == Outcome.ROLLBACK) {
            return ROLLBACK;
        }
        boolean ownerBusy = ownerAlive && preparedMillis < graceMillis;
        if (ownerBusy) {
            return WAIT;
        }
        return row == Outcome.COMMIT ? COMMIT : FENCE;
    }

    /**
     * What follows a fence: its INSERT went in (rollback), or met a row, read again as {@code
     * reRead} (null: none, which a duplicate key cannot leave, so wait and see), or must be tried
     * again.
     */
    public static RecoveryAction afterFence(Fence fence, Outcome reRead) {
        return switch (fence) {
            case INSERTED -> ROLLBACK;
            case DUPLICATE -> reRead == Outcome.COMMIT ? COMMIT : reRead == Outcome.ROLLBACK ? ROLLBACK : WAIT;
            case LOCK_WAIT, FAILED -> WAIT;
        };
    }
}
