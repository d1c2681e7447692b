package io.shardgate.router.control;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.admin.store.StoreStatus;
import java.util.List;
import java.util.Optional;

/**
 * The rule store as the router's admin interfaces (HTTP API, SQL admin) see it: user passwords given
 * in plaintext (convenient in a PUT or an admin statement) are hashed before the version is
 * validated and written, so ZooKeeper only ever holds hashes; literal backend passwords are shown
 * as {@link BackendPasswordMask#HIDDEN} and a hidden one published back keeps its value.
 */
final class AdminRuleStore implements RuleStore {
    private final RuleStore store;

    AdminRuleStore(RuleStore store) {
        this.store = store;
    }

    @Override
    public Optional<ConfigVersion> current() {
        return store.current().map(AdminRuleStore::shown);
    }

    /** Publishes; the version returned is shown as {@link #current()} shows it. */
    @Override
    public ConfigVersion publish(long basedOn, ConfigDocuments documents) {
        return shown(store.publish(basedOn, forStore(documents)));
    }

    @Override
    public ConfigVersion publish(ConfigDocuments documents) {
        return shown(store.publish(forStore(documents)));
    }

    private static ConfigVersion shown(ConfigVersion version) {
        return new ConfigVersion(version.number(), BackendPasswordMask.hide(version.documents()));
    }

    private ConfigDocuments forStore(ConfigDocuments documents) {
        ConfigDocuments current = store.current().map(ConfigVersion::documents).orElse(null);
        return ClusterDocuments.hashPasswords(BackendPasswordMask.restore(documents, current));
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
