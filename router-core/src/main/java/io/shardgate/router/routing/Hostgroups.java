package io.shardgate.router.routing;

import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.pool.PoolStats;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Every hostgroup of the router by id; built once at start, thread-safe to read. */
public final class Hostgroups implements AutoCloseable {
    private final Map<Integer, Hostgroup> byId;

    public Hostgroups(List<HostgroupConfig> configs, BackendConnector connector) {
        TreeMap<Integer, Hostgroup> map = new TreeMap<>();
        for (HostgroupConfig config : configs) {
            map.put(config.id(), new Hostgroup(config, connector));
        }
        this.byId = java.util.Collections.unmodifiableMap(map);
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
