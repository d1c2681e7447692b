package io.shardgate.router.control;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardgate.admin.store.ConfigListener;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.frontend.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.sharding.rule.InvalidRulesException;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.SortedSet;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each configuration version the rule store accepts to the running router: new hostgroups
 * get pools, then the users new logins check and the sharding rules new statements plan against
 * are swapped, each atomically. A statement in flight finishes on the snapshot it read; plans of
 * older versions leave the plan cache when the first statement plans under the new one.
 *
 * <p>A running hostgroup is never changed or closed under its sessions: a version that changes or
 * removes one is served otherwise whole, and the hostgroup keeps its old settings until the router
 * restarts (logged, and counted by {@code shardgate.config.restart_needed}). The store runs this on
 * its own thread, one version at a time, in increasing order.
 */
public final class LiveConfiguration implements ConfigListener {
    private static final Logger log = LoggerFactory.getLogger(LiveConfiguration.class);

    private final RouterConfig local;
    private final RoutingRules routing;
    private final UserDirectory users;
    private final Hostgroups hostgroups;
    private final RouterMetrics metrics;
    private volatile RouterConfig current;
    private volatile long version;
    private volatile SortedSet<Integer> restartNeeded = new TreeSet<>();

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
            RouterMetrics metrics) {
        this.local = local;
        this.version = version;
        this.current = current;
        this.routing = routing;
        this.users = users;
        this.hostgroups = hostgroups;
        this.metrics = metrics;
        MeterRegistry registry = metrics.registry();
        Gauge.builder("shardgate.config.restart_needed", this, c -> c.restartNeeded.size())
                .description("Hostgroups whose changed settings apply only after a restart")
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

    /** Hostgroups whose configuration in the current version differs from what runs. */
    public SortedSet<Integer> restartNeeded() {
        return restartNeeded;
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
        SortedSet<Integer> unapplied = hostgroups.apply(next.hostgroups());
        metrics.pools(hostgroups);
        users.replace(next.users());
        routing.publish(rules);
        current = next;
        version = accepted.number();
        restartNeeded = unapplied;
        if (unapplied.isEmpty()) {
            log.info("config version {} in force", accepted.number());
        } else {
            log.warn(
                    "config version {} in force, except for hostgroups {}: changing or removing a running hostgroup"
                            + " takes a restart; they keep their previous settings until then",
                    accepted.number(),
                    unapplied);
        }
    }
}
