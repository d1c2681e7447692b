package io.shardgate.router.memory;

import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.ReaderConfig;
import io.shardgate.router.config.RouterConfig;

/**
 * What a router's configuration asks of its memory: the sessions it accepts, the backend
 * connections its pools may open, the result cache's bound and the largest packet and merge one
 * statement may hold. The file's {@code hostgroups} and {@code cache} are the ones the router starts
 * with; a later version from ZooKeeper may differ until the next start.
 *
 * @param clientConnections {@code server.max_connections}
 * @param backendConnections the pools' bound over every server of every hostgroup
 * @param cacheBytes {@code cache.max_bytes} when the cache is enabled, else 0
 * @param maxMergeBytes {@code server.max_merge_bytes}
 * @param maxAllowedPacket {@code server.max_allowed_packet}
 */
public record MemoryDemand(
        int clientConnections, long backendConnections, long cacheBytes, long maxMergeBytes, int maxAllowedPacket) {

    /** The demand of a configuration file as the router would start with it. */
    public static MemoryDemand of(RouterConfig config) {
        long backends = 0;
        for (HostgroupConfig hostgroup : config.hostgroups()) {
            backends += hostgroup.pool().maxConnections();
            for (ReaderConfig reader : hostgroup.readers()) {
                backends +=
                        reader.maxConnections() == null ? hostgroup.pool().maxConnections() : reader.maxConnections();
            }
        }
        var cache = config.cacheConfig();
        return new MemoryDemand(
                config.server().maxConnections(),
                backends,
                cache.enabled() ? cache.maxBytes() : 0,
                config.server().maxMergeBytes(),
                config.server().maxAllowedPacket());
    }
}
