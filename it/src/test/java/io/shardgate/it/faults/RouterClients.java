package io.shardgate.it.faults;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;

/** The client side of the router-kill workloads: connections that come and go with the router. */
final class RouterClients {
    private RouterClients() {}

    /**
     * A new router connection, retried every 100 ms while the router is away; null once {@code
     * running} is false. The first 20 connect errors go to {@code errors}.
     */
    static Connection connect(
            FaultCluster cluster, int port, Driver driver, AtomicBoolean running, Queue<String> errors) {
        while (running.get()) {
            try {
                return cluster.proxied(port, driver, Map.of("connectTimeout", "2000"));
            } catch (SQLException e) {
                if (errors.size() < 20) {
                    errors.add("connect: " + e);
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        return null;
    }

    static boolean alive(Connection c) {
        try {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // the router is gone: nothing to close cleanly
            }
        }
    }
}
