package io.shardgate.it.differential;

import io.shardgate.it.Driver;
import io.shardgate.it.differential.DifferentialSchema.Placement;
import io.shardgate.it.differential.DifferentialSchema.Table;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.sharding.rule.KeyedStrategy;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Three MariaDB shards (hostgroups 10, 20, 30) behind one in-process Shardgate, and one unsharded
 * MariaDB, the oracle, holding the same rows. Tables are created directly on every server that the
 * rules may put rows on (the fixture is not under test); rows are loaded through the router first,
 * and reset directly afterwards to where the rules place them ({@link #expectedHostgroup}).
 */
final class DifferentialCluster implements AutoCloseable {
    static final String USER = "app";
    static final String PASSWORD = "app-secret";
    static final String BACKEND_USER = "shardgate";
    static final String BACKEND_PASSWORD = "sg-secret";
    static final int[] HOSTGROUPS = {10, 20, 30};

    final List<MariaDbServer> shards = new ArrayList<>();
    final MariaDbServer oracle;
    final Shardgate router;
    final RuleSnapshot rules;
    private final List<Connection> direct = new ArrayList<>();
    /** The oracle, for resets and table checks (not for compared statements). */
    private Connection oracleDirect;

    DifferentialCluster(Path dataDir) throws Exception {
        List<MariaDbServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < HOSTGROUPS.length + 1; i++) {
                started.add(MariaDbServer.builder()
                        .database(DifferentialSchema.SCHEMA)
                        .user(BACKEND_USER, BACKEND_PASSWORD)
                        .innodbBufferPoolSize("32M")
                        .arg("--innodb-flush-log-at-trx-commit=0") // no fsync per write: a test fixture
                        .start());
            }
            shards.addAll(started.subList(0, HOSTGROUPS.length));
            oracle = started.get(HOSTGROUPS.length);
            List<String> yaml = new ArrayList<>();
            yaml.add("server: {bind: 127.0.0.1, port: 0, http_port: 0, node_id: 7, data_dir: \""
                    + Files.createDirectories(dataDir.resolve("router")) + "\"}");
            yaml.add("users: [{name: " + USER + ", password: " + PASSWORD + "}]");
            yaml.add("hostgroups:");
            for (int i = 0; i < HOSTGROUPS.length; i++) {
                yaml.add("  - {id: " + HOSTGROUPS[i] + ", writer: \""
                        + shards.get(i).address() + "\", user: " + BACKEND_USER + ", password: " + BACKEND_PASSWORD
                        + "}");
            }
            yaml.add("schemas:");
            yaml.add("  - name: " + DifferentialSchema.SCHEMA);
            yaml.add("    default_hostgroup: 10");
            DifferentialSchema.RULES.forEach(line -> yaml.add("    " + line));
            RouterConfig config = RouterConfig.parse(String.join("\n", yaml) + "\n");
            rules = config.rules(1);
            router = Shardgate.start(config);
            for (int i = 0; i < HOSTGROUPS.length; i++) {
                direct.add(Driver.MARIADB.connect(
                        shards.get(i).port(), DifferentialSchema.SCHEMA, BACKEND_USER, BACKEND_PASSWORD));
            }
            oracleDirect =
                    Driver.MARIADB.connect(oracle.port(), DifferentialSchema.SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
        } catch (Exception | Error e) {
            started.forEach(MariaDbServer::close);
            throw e;
        }
    }

    /**
     * A client connection through the router: {@code driver} 0 MySQL Connector/J, 1 MariaDB
     * Connector/J, 2 MySQL Connector/J with {@code characterEncoding=ISO-8859-1} (a latin1 client).
     */
    Connection viaRouter(int driver, boolean serverPrepared) throws SQLException {
        return connect(driver, serverPrepared, router.mysqlPort(), USER, PASSWORD);
    }

    /** The same kind of connection to the oracle. */
    Connection toOracle(int driver, boolean serverPrepared) throws SQLException {
        return connect(driver, serverPrepared, oracle.port(), BACKEND_USER, BACKEND_PASSWORD);
    }

    private static Connection connect(int driver, boolean serverPrepared, int port, String user, String password)
            throws SQLException {
        Map<String, String> p = new java.util.HashMap<>();
        p.put("socketTimeout", "30000");
        if (driver == 2) {
            p.put("characterEncoding", "ISO-8859-1");
        }
        if (driver != 1) {
            p.put("useServerPrepStmts", Boolean.toString(serverPrepared));
            p.put("emulateUnsupportedPstmts", "false"); // a refused PREPARE must not fall back to client-side
            p.put("cachePrepStmts", "false");
            p.put("sslMode", "DISABLED");
        }
        return (driver == 1 ? Driver.MARIADB : Driver.MYSQL)
                .connect(port, DifferentialSchema.SCHEMA, user, password, p);
    }

    Connection direct(int hostgroup) {
        return direct.get(hostgroup / 10 - 1);
    }

    /** Creates every table directly: sharded and broadcast tables on every shard, the unlisted one on 10. */
    void createTables() throws SQLException {
        try (Connection o = toOracle(1, false);
                Statement s = o.createStatement()) {
            for (Table t : DifferentialSchema.TABLES) {
                s.execute(t.ddl());
            }
        }
        for (int hg : HOSTGROUPS) {
            try (Statement s = direct(hg).createStatement()) {
                for (Table t : DifferentialSchema.TABLES) {
                    if (t.placement() != Placement.UNSHARDED || hg == 10) {
                        s.execute(t.ddl());
                    }
                }
            }
        }
    }

    /** The hostgroup the rules place a row with this key on (sharded tables). */
    int expectedHostgroup(Table t, Object key) {
        KeyedStrategy strategy =
                rules.schema(DifferentialSchema.SCHEMA).listed(t.name()).keyed();
        return strategy.hostgroupOf(key);
    }

    /** Hostgroups that hold table {@code t} at all. */
    static List<Integer> holders(Table t) {
        return t.placement() == Placement.UNSHARDED ? List.of(10) : List.of(10, 20, 30);
    }

    /** Loads the initial rows through the router (one multi-row INSERT per table) and directly into the oracle. */
    List<String> loadThroughRouter(Map<Table, List<List<Object>>> rows) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Connection r = viaRouter(1, false);
                Connection o = toOracle(1, false)) {
            for (Map.Entry<Table, List<List<Object>>> e : rows.entrySet()) {
                String sql = insert(e.getKey(), e.getValue());
                long viaRouter = -2;
                try (Statement s = r.createStatement()) {
                    viaRouter = s.executeLargeUpdate(sql);
                } catch (SQLException x) {
                    problems.add("load of " + e.getKey().name() + " through the router failed: " + x);
                }
                try (Statement s = o.createStatement()) {
                    long want = s.executeLargeUpdate(sql);
                    if (viaRouter != want) {
                        problems.add("load of " + e.getKey().name() + ": router affected " + viaRouter
                                + " rows, oracle " + want);
                    }
                }
            }
        }
        return problems;
    }

    private static String insert(Table t, List<List<Object>> rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO " + t.name() + " ("
                + String.join(
                        ", ",
                        t.columns().stream()
                                .map(DifferentialSchema.Column::name)
                                .toList()) + ") VALUES ");
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "(" : ", (");
            List<Object> row = rows.get(i);
            for (int j = 0; j < row.size(); j++) {
                sql.append(j == 0 ? "" : ", ").append(Literal.sql(row.get(j)));
            }
            sql.append(')');
        }
        return sql.toString();
    }

    /** Puts every table back to the initial rows, directly: in the oracle, and on the shards where the rules place them. */
    void reset(Map<Table, List<List<Object>>> rows) throws SQLException {
        try (Statement s = oracleDirect.createStatement()) {
            s.execute("DROP TABLE IF EXISTS ctas"); // what a CREATE TABLE ... AS SELECT may have left
            for (Map.Entry<Table, List<List<Object>>> e : rows.entrySet()) {
                s.execute("DELETE FROM " + e.getKey().name());
                s.execute(insert(e.getKey(), e.getValue()));
            }
        }
        for (int hg : HOSTGROUPS) {
            try (Statement s = direct(hg).createStatement()) {
                s.execute("DROP TABLE IF EXISTS ctas");
                for (Map.Entry<Table, List<List<Object>>> e : rows.entrySet()) {
                    Table t = e.getKey();
                    if (!holders(t).contains(hg)) {
                        continue;
                    }
                    s.execute("DELETE FROM " + t.name());
                    List<List<Object>> mine = t.sharded()
                            ? e.getValue().stream()
                                    .filter(row -> expectedHostgroup(t, row.get(0)) == hg)
                                    .toList()
                            : e.getValue();
                    if (!mine.isEmpty()) {
                        s.execute(insert(t, mine));
                    }
                }
            }
        }
    }

    /** Every row of {@code t} in the oracle, as text, sorted. */
    List<List<String>> oracleRows(Table t) throws SQLException {
        return rows(oracleDirect, t);
    }

    List<List<String>> shardRows(int hostgroup, Table t) throws SQLException {
        return rows(direct(hostgroup), t);
    }

    private static List<List<String>> rows(Connection c, Table t) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM " + t.name())) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    row.add(rs.getString(i));
                }
                out.add(row);
            }
        }
        out.sort(Comparator.comparing(Object::toString));
        return out;
    }

    @Override
    public void close() {
        List<Connection> all = new ArrayList<>(direct);
        if (oracleDirect != null) {
            all.add(oracleDirect);
        }
        for (Connection c : all) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
        if (router != null) {
            router.close();
        }
        shards.forEach(MariaDbServer::close);
        if (oracle != null) {
            oracle.close();
        }
    }
}
