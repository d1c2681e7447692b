package io.shardgate.it.move;

import io.shardgate.it.server.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shards of the move ITs: hostgroups 10 and 20 (the cluster) and 30 (the one that joins), each a
 * MariaDB writing a row-based binary log, database {@code shop}, the same tables on each; the
 * router logs in as root (a move needs the replication and LOCK TABLES rights).
 */
final class MoveShards implements AutoCloseable {
    static final int[] HOSTGROUPS = {10, 20, 30};

    private final Map<Integer, MariaDbServer> servers = new LinkedHashMap<>();

    /** Starts the three shards and runs {@code ddl} on each. */
    static MoveShards start(String... ddl) throws SQLException {
        MoveShards shards = new MoveShards();
        for (int hostgroup : HOSTGROUPS) {
            shards.servers.put(
                    hostgroup,
                    MariaDbServer.builder()
                            .database("shop")
                            .innodbBufferPoolSize("32M")
                            .arg("--log-bin=shard-bin")
                            .arg("--binlog-format=ROW")
                            .arg("--server-id=" + hostgroup)
                            .start());
            try (Connection c = shards.direct(hostgroup);
                    Statement s = c.createStatement()) {
                for (String statement : ddl) {
                    s.execute(statement);
                }
            }
        }
        return shards;
    }

    /** The {@code hostgroups:} entries of a router's YAML. */
    String hostgroupsYaml() {
        StringBuilder yaml = new StringBuilder();
        servers.forEach((id, s) -> yaml.append("  - {id: ")
                .append(id)
                .append(", writer: \"")
                .append(s.address())
                .append("\", user: root, password: \"")
                .append(s.rootPassword())
                .append("\"}\n"));
        return yaml.toString();
    }

    /** A connection straight to a shard's database, past the router. */
    Connection direct(int hostgroup) throws SQLException {
        MariaDbServer s = servers.get(hostgroup);
        return DriverManager.getConnection(
                "jdbc:mariadb://" + s.address() + "/shop?user=root&password=" + s.rootPassword());
    }

    @Override
    public void close() {
        servers.values().forEach(MariaDbServer::close);
    }
}
