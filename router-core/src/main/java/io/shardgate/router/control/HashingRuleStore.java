package io.shardgate.router.control;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.admin.store.StoreStatus;
import java.util.List;
import java.util.Optional;

/**
 * The rule store as the router's admin interfaces publish to it: user passwords given in plaintext
 * (convenient in a PUT or an admin statement) are hashed before the version is validated and
 * written, so ZooKeeper only ever holds hashes.
 */
final class HashingRuleStore implements RuleStore {
    private final RuleStore store;

    HashingRuleStore(RuleStore store) {
        this.store = store;
    }

    @Override
    public Optional<ConfigVersion> current() {
        return store.current();
    }

    @Override
    public ConfigVersion publish(long basedOn, ConfigDocuments documents) {
        return store.publish(basedOn, ClusterDocuments.hashPasswords(documents));
    }

    @Override
    public ConfigVersion publish(ConfigDocuments documents) {
        return store.publish(ClusterDocuments.hashPasswords(documents));
    }

    @Override
    public StoreStatus status() {
        return store.status();
    }

    @Override
    public List<LiveRouter> liveRouters() {
        return store.liveRouters();
    }
}
