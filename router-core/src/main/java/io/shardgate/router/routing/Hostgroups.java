package io.shardgate.router.routing;

import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.pool.PoolStats;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Every hostgroup of the router by id; thread-safe to read. Built at start; a new configuration
 * version may add hostgroups ({@link #apply}), never change or remove a running one.
 */
public final class Hostgroups implements AutoCloseable {
    private final BackendConnector connector;
    private volatile Map<Integer, Hostgroup> byId;
    /** Told of each hostgroup {@link #apply} opens (the health monitor starts checking it). */
    private final List<Consumer<Hostgroup>> addedListeners = new CopyOnWriteArrayList<>();

    public Hostgroups(List<HostgroupConfig> configs, BackendConnector connector) {
        this.connector = connector;
        TreeMap<Integer, Hostgroup> map = new TreeMap<>();
        for (HostgroupConfig config : configs) {
            map.put(config.id(), new Hostgroup(config, connector));
        }
        this.byId = java.util.Collections.unmodifiableMap(map);
    }

    /**
     * Opens pools for the hostgroups of {@code configs} that do not run yet. Sessions hold on to
     * the pools they use, so a running hostgroup is left as it is: the ids returned are those whose
     * configuration differs from (or is missing in) {@code configs}; they change at the next start.
     */
    public synchronized java.util.SortedSet<Integer> apply(List<HostgroupConfig> configs) {
        TreeMap<Integer, Hostgroup> map = new TreeMap<>(byId);
        java.util.SortedSet<Integer> unapplied = new java.util.TreeSet<>(byId.keySet());
        List<Hostgroup> opened = new java.util.ArrayList<>();
        for (HostgroupConfig config : configs) {
            Hostgroup running = map.get(config.id());
            if (running == null) {
                Hostgroup added = new Hostgroup(config, connector);
                map.put(config.id(), added);
                opened.add(added);
            } else if (running.config().equals(config)) {
                unapplied.remove(config.id());
            }
        }
        byId = java.util.Collections.unmodifiableMap(map);
        opened.forEach(added -> addedListeners.forEach(listener -> listener.accept(added)));
        return unapplied;
    }

    /** Calls {@code listener} with every hostgroup a later {@link #apply} opens. */
    public void onAdded(Consumer<Hostgroup> listener) {
        addedListeners.add(listener);
    }

    /** The hostgroup with this id, or null. */
    public Hostgroup get(int id) {
        return byId.get(id);
    }

    public Collection<Hostgroup> all() {
        return byId.values();
    }

    /** Every server of every hostgroup, in hostgroup order, the configured writer first. */
    public List<BackendServer> servers() {
        return byId.values().stream().flatMap(h -> h.servers().stream()).toList();
    }

    /** Pool counters of every server, in hostgroup order. */
    public List<PoolStats> poolStats() {
        return servers().stream().map(s -> s.pool().stats()).toList();
    }

    @Override
    public void close() {
        byId.values().forEach(Hostgroup::close);
    }
}
