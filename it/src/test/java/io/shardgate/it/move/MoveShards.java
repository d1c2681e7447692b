package io.shardgate.it.move;

import io.shardgate.it.server.MariaDbServer;
import io.shardgate.sharding.rule.KeyHash;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;

/**
 * The shards of the move ITs: hostgroups 10 and 20 (the cluster) and 30 (the one that joins), each a
 * MariaDB writing a row-based binary log, database {@code shop}, the same tables on each; the
 * router logs in as root (a move needs the replication and LOCK TABLES rights).
 */
final class MoveShards implements AutoCloseable {
    static final int[] HOSTGROUPS = {10, 20, 30};

    private final Map<Integer, MariaDbServer> servers = new LinkedHashMap<>();
    /** Where each shard's data directory is kept, or null (temporary ones). */
    private final Path dataRoot;

    private MoveShards(Path dataRoot) {
        this.dataRoot = dataRoot;
    }

    /** Starts the three shards and runs {@code ddl} on each. */
    static MoveShards start(String... ddl) throws SQLException {
        return start(null, ddl);
    }

    /**
     * Starts the three shards with their data directories (and binary logs) under {@code dataRoot}
     * (null: temporary ones), so that {@link #stop} and {@link #restart} bring a shard back as it was.
     */
    static MoveShards start(Path dataRoot, String... ddl) throws SQLException {
        MoveShards shards = new MoveShards(dataRoot);
        for (int hostgroup : HOSTGROUPS) {
            shards.servers.put(hostgroup, shards.launch(hostgroup, 0));
            try (Connection c = shards.direct(hostgroup);
                    Statement s = c.createStatement()) {
                for (String statement : ddl) {
                    s.execute(statement);
                }
            }
        }
        return shards;
    }

    private MariaDbServer launch(int hostgroup, int port) {
        MariaDbServer.Builder builder = MariaDbServer.builder()
                .port(port)
                .database("shop")
                .innodbBufferPoolSize("32M")
                .arg("--log-bin=shard-bin")
                .arg("--binlog-format=ROW")
                .arg("--server-id=" + hostgroup)
                .arg("--innodb-print-all-deadlocks=ON"); // a deadlock is an IT failure: log each one
        if (dataRoot != null) {
            builder.dataDir(dataRoot.resolve("shard-" + hostgroup));
        }
        return builder.start();
    }

    /** Shuts the shard down (SIGTERM: InnoDB and the binary log closed cleanly); its data stays. */
    void stop(int hostgroup) {
        if (dataRoot == null) {
            throw new IllegalStateException("a shard without a kept data directory cannot come back");
        }
        servers.get(hostgroup).close();
    }

    /** Starts a stopped shard again on its port and data directory. */
    void restart(int hostgroup) {
        servers.put(hostgroup, launch(hostgroup, servers.get(hostgroup).port()));
    }

    /**
     * Rows 1..{@code rows} of {@code orders} (id, amount = id, note 'pre'), straight on the shard
     * {@code owner} names for each row's bucket, and on the unsharded {@code reference} (closed after).
     */
    void preload(Connection reference, int rows, int buckets, IntUnaryOperator owner) throws SQLException {
        try (reference) {
            for (int from = 1; from <= rows; from += 1000) {
                Map<Integer, StringBuilder> inserts = new TreeMap<>();
                StringBuilder all = new StringBuilder("INSERT INTO orders VALUES ");
                for (int id = from; id < from + 1000 && id <= rows; id++) {
                    String row = "(" + id + "," + id + ",'pre')";
                    StringBuilder sql = inserts.computeIfAbsent(
                            owner.applyAsInt(KeyHash.bucket(id, buckets)),
                            k -> new StringBuilder("INSERT INTO orders VALUES "));
                    sql.append(sql.charAt(sql.length() - 1) == ' ' ? "" : ",").append(row);
                    all.append(all.charAt(all.length() - 1) == ' ' ? "" : ",").append(row);
                }
                for (Map.Entry<Integer, StringBuilder> e : inserts.entrySet()) {
                    try (Connection c = direct(e.getKey());
                            Statement s = c.createStatement()) {
                        s.execute(e.getValue().toString());
                    }
                }
                try (Statement s = reference.createStatement()) {
                    s.execute(all.toString());
                }
            }
        }
    }

    /** The {@code hostgroups:} entries of a router's YAML. */
    String hostgroupsYaml() {
        return hostgroupsYaml("");
    }

    /** The {@code hostgroups:} entries of a router's YAML, each with {@code keys} (flow style, may be empty). */
    String hostgroupsYaml(String keys) {
        StringBuilder yaml = new StringBuilder();
        servers.forEach((id, s) -> yaml.append("  - {id: ")
                .append(id)
                .append(", writer: \"")
                .append(s.address())
                .append("\", user: root, password: \"")
                .append(s.rootPassword())
                .append("\"")
                .append(keys.isEmpty() ? "" : ", " + keys)
                .append("}\n"));
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
