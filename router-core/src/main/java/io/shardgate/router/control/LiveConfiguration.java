package io.shardgate.router.control;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardgate.admin.store.ConfigListener;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.login.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.resultcache.RouterResultCache;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.sharding.rule.InvalidRulesException;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.SortedSet;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each configuration version the rule store accepts to the running router: the
 * hostgroups (new ones open pools, changed or removed ones drain: {@link Hostgroups}), the result
 * cache's settings, the users new logins check and the sharding rules new statements plan against,
 * each swapped atomically. A statement in flight finishes on the snapshot and pool it has; plans of
 * older versions leave the plan cache when the first statement plans under the new one. The store
 * runs this on its own thread, one version at a time, in increasing order.
 */
public final class LiveConfiguration implements ConfigListener {
    private static final Logger log = LoggerFactory.getLogger(LiveConfiguration.class);

    private final RouterConfig local;
    private final RoutingRules routing;
    private final UserDirectory users;
    private final Hostgroups hostgroups;
    private final RouterResultCache cache;
    private final RouterMetrics metrics;
    private volatile RouterConfig current;
    private volatile long version;

    /**
     * @param local the router's own YAML (its {@code server} and {@code zookeeper} sections stay)
     * @param version the version {@code current} came from (0: the YAML, ZooKeeper not read yet)
     * @param current the configuration the router was built with
     */
    public LiveConfiguration(
            RouterConfig local,
            long version,
            RouterConfig current,
            RoutingRules routing,
            UserDirectory users,
            Hostgroups hostgroups,
            RouterResultCache cache,
            RouterMetrics metrics) {
        this.local = local;
        this.version = version;
        this.current = current;
        this.routing = routing;
        this.users = users;
        this.hostgroups = hostgroups;
        this.cache = cache;
        this.metrics = metrics;
        MeterRegistry registry = metrics.registry();
        Gauge.builder(
                        "shardgate.hostgroups.draining",
                        hostgroups,
                        h -> h.draining().size())
                .description("Hostgroups a newer configuration replaced or removed whose pools still lend connections")
                .register(registry);
    }

    /** The configuration version the router runs (0: its YAML, before ZooKeeper answered). */
    public long version() {
        return version;
    }

    /** The configuration the router runs, with its local {@code server} and {@code zookeeper}. */
    public RouterConfig current() {
        return current;
    }

    /** Ids of the retired hostgroups whose pools still wait for their borrowers. */
    public SortedSet<Integer> draining() {
        SortedSet<Integer> ids = new TreeSet<>();
        hostgroups.draining().forEach(h -> ids.add(h.id()));
        return ids;
    }

    @Override
    public synchronized void onAccepted(ConfigVersion accepted) {
        if (accepted.number() <= version) {
            return;
        }
        ClusterDocuments.Reading reading = ClusterDocuments.read(local, accepted.documents());
        if (reading.config() == null) {
            // the store validated it with the same reader: only a bug gets here
            log.error("config version {} cannot be applied: {}", accepted.number(), reading.problems());
            return;
        }
        RouterConfig next = reading.config();
        RuleSnapshot rules;
        try {
            rules = next.rules(accepted.number());
        } catch (InvalidRulesException e) {
            log.error("config version {} has invalid rules: {}", accepted.number(), e.problems());
            return;
        }
        SortedSet<Integer> retired = hostgroups.apply(next.hostgroups());
        metrics.pools(hostgroups);
        cache.results().reconfigure(next.cacheConfig());
        users.replace(next.users());
        routing.publish(rules);
        current = next;
        version = accepted.number();
        if (retired.isEmpty()) {
            log.info("config version {} in force", accepted.number());
        } else {
            log.info(
                    "config version {} in force; hostgroups {} changed or went away: their old pools drain",
                    accepted.number(),
                    retired);
        }
    }
}
