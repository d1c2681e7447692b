package io.shardgate.it.demo;

import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.util.List;

/**
 * A started demo: its MariaDB shards (hostgroups 10, 20, ... in order), the router in front of
 * them and the configuration it was started with. {@link #close} (idempotent) stops the router, then
 * the shards (and deletes their data).
 */
public final class RunningDemo implements AutoCloseable {
    private final List<MariaDbServer> shards;
    private final Shardgate router;
    private final RouterConfig config;
    private boolean closed;

    RunningDemo(List<MariaDbServer> shards, Shardgate router, RouterConfig config) {
        this.shards = List.copyOf(shards);
        this.router = router;
        this.config = config;
    }

    /** The shards, hostgroup 10 first. */
    public List<MariaDbServer> shards() {
        return shards;
    }

    public Shardgate router() {
        return router;
    }

    public RouterConfig config() {
        return config;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return; // Ctrl-C's shutdown hook and the command's own exit both close
        }
        closed = true;
        try {
            router.close();
        } finally {
            shards.forEach(MariaDbServer::close);
        }
    }
}
