package io.shardgate.it.scale;

import java.util.List;

/**
 * The cluster configuration of the fleet-scale benchmark: {@code hostgroups} shards, each one
 * writer, and {@code tables} tables of strategy {@code table} in one schema, table {@code i} on
 * hostgroup {@code i mod hostgroups}, so every hostgroup holds tables/hostgroups of them. The few
 * real MariaDB servers behind the hostgroups are shared round-robin (hostgroup {@code h} on server
 * {@code (h - 1) mod servers}), as many small shards share an instance.
 *
 * <p>Hostgroup 2, when {@code unmultiplexedPool > 0}, has multiplexing off and a pool of that size
 * (the contrast: one backend connection per client session).
 *
 * <p>Health checks are off for these hostgroups: with them on, every router would log in to every
 * hostgroup's server every 2 s (20 routers x 1,000 hostgroups = 10,000 logins/s on a few servers),
 * which measures the monitor, not the rules; its cost is in the model instead.
 */
record FleetConfig(int hostgroups, int tables, List<String> servers, int poolMaxConnections, int unmultiplexedPool) {
    static final String SCHEMA = "app";
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String BACKEND_USER = "shardgate";
    static final String BACKEND_PASSWORD = "sg-secret";

    FleetConfig {
        if (hostgroups < 2 || tables < 0 || servers.isEmpty() || poolMaxConnections < 1 || unmultiplexedPool < 0) {
            throw new IllegalArgumentException("hostgroups >= 2, tables >= 0, a server, a pool of >= 1");
        }
        servers = List.copyOf(servers);
    }

    /** Table {@code i}'s name (1-based): {@code t00001}; 6 characters up to 99,999 tables. */
    static String table(int i) {
        return String.format("t%05d", i);
    }

    /** The hostgroup holding table {@code i} (1-based). */
    int hostgroupOf(int table) {
        return (table - 1) % hostgroups + 1;
    }

    /** The server address behind hostgroup {@code h}. */
    String serverOf(int hostgroup) {
        return servers.get((hostgroup - 1) % servers.size());
    }

    /** The cluster sections as YAML: what the first router seeds into ZooKeeper. */
    String clusterYaml() {
        StringBuilder y = new StringBuilder(64 * tables + 160 * hostgroups + 256);
        y.append("users: [{name: ")
                .append(USER)
                .append(", password: ")
                .append(PASSWORD)
                .append("}]\n");
        y.append("hostgroups:\n");
        for (int h = 1; h <= hostgroups; h++) {
            y.append("  - {id: ")
                    .append(h)
                    .append(", writer: \"")
                    .append(serverOf(h))
                    .append("\", user: ")
                    .append(BACKEND_USER)
                    .append(", password: ")
                    .append(BACKEND_PASSWORD)
                    .append(", pool: {max_connections: ");
            if (h == 2 && unmultiplexedPool > 0) {
                y.append(unmultiplexedPool).append(", multiplexing: false");
            } else {
                y.append(poolMaxConnections);
            }
            y.append("}, monitor: {enabled: false}}\n");
        }
        y.append("schemas:\n  - name: ").append(SCHEMA).append("\n    default_hostgroup: 1\n    tables:");
        y.append(tables == 0 ? " []\n" : "\n");
        for (int i = 1; i <= tables; i++) {
            y.append("      - {name: ")
                    .append(table(i))
                    .append(", strategy: table, hostgroup: ")
                    .append(hostgroupOf(i))
                    .append("}\n");
        }
        return y.toString();
    }
}
