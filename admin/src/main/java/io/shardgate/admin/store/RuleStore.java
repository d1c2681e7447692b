package io.shardgate.admin.store;

import java.util.List;
import java.util.Optional;

/**
 * The cluster's configuration as routers and admin interfaces see it: the version being served, a
 * way to publish the next one, and the routers that are alive. {@link ZkRuleStore} keeps it in
 * ZooKeeper.
 */
public interface RuleStore {
    /** The version this process serves: complete and validated; empty until one is accepted. */
    Optional<ConfigVersion> current();

    /**
     * Validates {@code documents} and publishes them as the next version if the cluster is still at
     * {@code basedOn}.
     *
     * @return the version that was written
     * @throws InvalidConfigException when validation fails (nothing is written)
     * @throws ConfigConflictException when the cluster is no longer at {@code basedOn}
     * @throws RuleStoreException when the store cannot be reached or is not seeded
     */
    ConfigVersion publish(long basedOn, ConfigDocuments documents);

    /**
     * Publishes {@code documents} on top of whatever version the cluster is at when this reads it
     * (last writer wins, but still atomically: a publish between the read and the write is a
     * conflict).
     */
    ConfigVersion publish(ConfigDocuments documents);

    /** What this process serves and the most recent refusal. */
    StoreStatus status();

    /** The routers registered in the cluster right now, by id. */
    List<LiveRouter> liveRouters();
}
