package io.shardgate.it.routing;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Real MariaDB shards (hostgroups 10, 20, 30...) behind one in-process router whose {@code schemas}
 * section the test gives: the fixture of the routing ITs. Each shard has the logical schema's
 * database; {@link #direct} reaches a shard without the router, to check where rows landed.
 */
final class ShardedCluster implements AutoCloseable {
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String BACKEND_USER = "shardgate";
    static final String BACKEND_PASSWORD = "sg-secret";

    final String schema;
    final List<MariaDbServer> shards = new ArrayList<>();
    final Shardgate router;
    final RuleSnapshot rules;

    /**
     * @param tables the YAML lines under {@code tables:} (indented by 6), hostgroups 10, 20... are
     *     the shards in order; the schema's default hostgroup is 10
     * @param extra further schema keys (e.g. binding_groups), indented by 4, or empty
     */
    ShardedCluster(Path dataDir, String schema, int shardCount, List<String> tables, List<String> extra)
            throws Exception {
        this.schema = schema;
        try {
            for (int i = 0; i < shardCount; i++) {
                shards.add(MariaDbServer.builder()
                        .database(schema)
                        .user(BACKEND_USER, BACKEND_PASSWORD)
                        .innodbBufferPoolSize("32M")
                        .start());
            }
            List<String> yaml = new ArrayList<>();
            yaml.add("server: {bind: 127.0.0.1, port: 0, http_port: 0, node_id: 7, data_dir: \""
                    + Files.createDirectories(dataDir.resolve("router")) + "\"}");
            yaml.add("users: [{name: " + USER + ", password: " + PASSWORD + "}]");
            yaml.add("hostgroups:");
            for (int i = 0; i < shardCount; i++) {
                yaml.add("  - {id: " + hostgroup(i) + ", writer: \""
                        + shards.get(i).address() + "\", user: " + BACKEND_USER + ", password: " + BACKEND_PASSWORD
                        + "}");
            }
            yaml.add("schemas:");
            yaml.add("  - name: " + schema);
            yaml.add("    default_hostgroup: 10");
            yaml.add("    tables:");
            tables.forEach(t -> yaml.add("      - " + t));
            extra.forEach(e -> yaml.add("    " + e));
            RouterConfig config = RouterConfig.parse(String.join("\n", yaml) + "\n");
            rules = config.rules(1);
            router = Shardgate.start(config);
        } catch (Exception | Error e) {
            shards.forEach(MariaDbServer::close);
            throw e;
        }
    }

    static int hostgroup(int shardIndex) {
        return 10 * (shardIndex + 1);
    }

    MariaDbServer shard(int hostgroup) {
        return shards.get(hostgroup / 10 - 1);
    }

    Connection proxied(Driver driver) throws SQLException {
        return proxied(driver, Map.of());
    }

    Connection proxied(Driver driver, Map<String, String> properties) throws SQLException {
        Map<String, String> p = new java.util.HashMap<>(properties);
        p.putIfAbsent("socketTimeout", "60000");
        return driver.connect(router.mysqlPort(), schema, USER, PASSWORD, p);
    }

    Connection direct(int hostgroup) throws SQLException {
        return Driver.MARIADB.connect(shard(hostgroup).port(), schema, BACKEND_USER, BACKEND_PASSWORD);
    }

    /** Runs {@code ddl} on every shard directly (tables exist where the rules may put rows). */
    void onEveryShard(String... ddl) throws SQLException {
        for (int i = 0; i < shards.size(); i++) {
            onShard(hostgroup(i), ddl);
        }
    }

    void onShard(int hostgroup, String... ddl) throws SQLException {
        try (Connection c = direct(hostgroup);
                Statement s = c.createStatement()) {
            for (String sql : ddl) {
                s.execute(sql);
            }
        }
    }

    @Override
    public void close() {
        if (router != null) {
            router.close();
        }
        shards.forEach(MariaDbServer::close);
    }
}
