package io.shardgate.admin.store;

/**
 * A subscriber to the cluster's configuration: router-core swaps its runtime rules here.
 *
 * <p>Callbacks run one at a time, in version order, on the store's own thread; a callback that
 * throws is logged and does not stop the others.
 */
public interface ConfigListener {
    /** A complete, validated version newer than any accepted before. */
    void onAccepted(ConfigVersion version);

    /** A version that was refused; the previously accepted one keeps serving. */
    default void onRejected(ConfigRejection rejection) {}
}
