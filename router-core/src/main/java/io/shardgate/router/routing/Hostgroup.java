package io.shardgate.router.routing;

import io.netty.channel.EventLoop;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.pool.BackendPool;
import io.shardgate.router.pool.PoolPartition;

/**
 * One hostgroup at run time: its configuration and the pool of connections to its writer. A
 * statement the planner sends to hostgroup {@code id} borrows from here.
 */
public final class Hostgroup implements AutoCloseable {
    private final HostgroupConfig config;
    private final BackendPool writer;

    public Hostgroup(HostgroupConfig config, BackendConnector connector) {
        this.config = config;
        this.writer = new BackendPool(config, config.writerAddress(), connector);
    }

    public int id() {
        return config.id();
    }

    public HostgroupConfig config() {
        return config;
    }

    /** The writer's pool. */
    public BackendPool writer() {
        return writer;
    }

    /** Where a session on {@code loop} borrows connections for this hostgroup. */
    public PoolPartition partition(EventLoop loop) {
        return writer.partition(loop);
    }

    @Override
    public void close() {
        writer.close();
    }
}
