package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.it.Driver;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where passwords and result data may appear: user passwords reach ZooKeeper, {@code GET
 * /api/config} and the SQL admin's tables only as hashes; backend passwords given as a file stay
 * out of the shared configuration, literal ones are shown as {@code <hidden>} and survive a GET
 * published back; the admin endpoints bind to loopback and only admin accounts log in there; and the
 * router's log, captured at DEBUG through logins good and bad, queries whose rows carry a marker,
 * and configuration changes, holds none of the passwords and no row data.
 */
@ExtendWith(ProxyClusterExtension.class)
class SecretsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROOT = "/shardgate/secrets-it";
    private static final String APP_PASSWORD = "app-pw-7f3e";
    private static final String WRONG_PASSWORD = "wrong-pw-c0ffee";
    private static final String ADMIN_PASSWORD = "admin-pw-91c2";
    private static final String LATE_PASSWORD = "late-pw-4b9a";
    private static final String SQL_PASSWORD = "sql-pw-8e2d";
    private static final String ROW_MARKER = "row-marker-5d1e";
    /** What GET /api/config and the SQL admin show for a literal backend password. */
    private static final String HIDDEN = "<hidden>";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void passwordsAndRowsStayOutOfStoresApisAndLogs(ProxyCluster cluster) throws Exception {
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS secrets_literal");
            s.execute("CREATE TABLE IF NOT EXISTS secret_rows (id INT PRIMARY KEY, v VARCHAR(40))");
            s.execute("REPLACE INTO secret_rows VALUES (1, '" + ROW_MARKER + "')"); // straight to the shard
        }
        Path passwordFile = Files.writeString(dir.resolve("hg10.password"), ProxyCluster.BACKEND_PASSWORD + "\n");
        List<String> secrets = List.of(
                APP_PASSWORD,
                WRONG_PASSWORD,
                ADMIN_PASSWORD,
                LATE_PASSWORD,
                SQL_PASSWORD,
                ProxyCluster.BACKEND_PASSWORD,
                ROW_MARKER);

        try (CapturedLog log = CapturedLog.start(Level.DEBUG);
                EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(dir.resolve("zk"), 0)) {
            zooKeeper.start();
            String backend = cluster.backend().address();
            String yaml = String.join(
                    "\n",
                    "server: {port: 0, http_port: 0, admin_port: 0, data_dir: \"" + dir.resolve("router") + "\"}",
                    "zookeeper: {connect: \"" + zooKeeper.connectString() + "\", root: " + ROOT + "}",
                    "users: [{name: app, password: " + APP_PASSWORD + "}]",
                    "admin: {users: [{name: admin, password: " + ADMIN_PASSWORD + "}]}",
                    "hostgroups:",
                    "  - {id: 10, writer: \"" + backend + "\", user: " + ProxyCluster.BACKEND_USER
                            + ", password_file: \"" + passwordFile + "\"}",
                    "  - {id: 20, writer: \"" + backend + "\", user: " + ProxyCluster.BACKEND_USER + ", password: "
                            + ProxyCluster.BACKEND_PASSWORD + "}",
                    "schemas:",
                    "  - {name: " + ProxyCluster.SCHEMA + ", default_hostgroup: 10}",
                    "  - {name: secrets_literal, default_hostgroup: 20}",
                    "");
            try (Shardgate router = Shardgate.start(RouterConfig.parse(yaml))) {
                adminEndpointsListenOnLoopbackOnly(router);
                logInsAndQueries(router);
                changeConfiguration(router);

                String stored = zooKeeperText(zooKeeper.connectString());
                assertThat(stored)
                        .as("every document under %s", ROOT)
                        .contains("password_hash")
                        .contains(passwordFile.toString())
                        .doesNotContain(APP_PASSWORD, ADMIN_PASSWORD, LATE_PASSWORD, SQL_PASSWORD)
                        .doesNotContain(HIDDEN);
                assertThat(stored)
                        .as("a literal backend password is stored as given (hostgroup 20), the GET's <hidden> was"
                                + " not published")
                        .contains("\"password\":\"" + ProxyCluster.BACKEND_PASSWORD + "\"");

                String api = get(router, "/api/config").body();
                assertThat(api).contains("password_hash").contains(HIDDEN);
                assertThat(api).doesNotContain(secrets.toArray(new String[0]));
                assertThat(adminTables(router)).doesNotContain(secrets.toArray(new String[0]));

                try (Connection c = connect(router, "secrets_literal", "app", APP_PASSWORD);
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
                    assertThat(rs.next())
                            .as("hostgroup 20 still logs in after the round trip")
                            .isTrue();
                }
            }
            List<String> lines = log.lines();
            assertThat(lines)
                    .as("the capture works")
                    .anySatisfy(line -> assertThat(line).contains("DEBUG"));
            for (String secret : secrets) {
                assertThat(lines).noneSatisfy(line -> assertThat(line).contains(secret));
            }
        }
    }

    private void adminEndpointsListenOnLoopbackOnly(Shardgate router) throws Exception {
        // no server.bind given: every listener is on 127.0.0.1
        for (int port : List.of(router.mysqlPort(), router.adminPort(), router.httpPort())) {
            assertThat(listensOnLoopbackOnly(port)).as("port %d", port).isTrue();
        }
        SQLException e = catchThrowableOfType(
                SQLException.class,
                () -> Driver.MYSQL
                        .connect(router.adminPort(), null, "app", APP_PASSWORD, Map.of("sslMode", "DISABLED"))
                        .close());
        assertThat((Object) e).as("an application user on the admin port").isNotNull();
        assertThat(e.getErrorCode()).isEqualTo(1045);
        SQLException wrong = catchThrowableOfType(
                SQLException.class,
                () -> Driver.MYSQL
                        .connect(router.adminPort(), null, "admin", WRONG_PASSWORD, Map.of("sslMode", "DISABLED"))
                        .close());
        assertThat((Object) wrong).isNotNull();
    }

    /** True when the port is bound on 127.0.0.1 and not on the wildcard address (read from /proc/net/tcp). */
    private static boolean listensOnLoopbackOnly(int port) throws Exception {
        String hexPort = String.format("%04X", port);
        List<String> local = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file)) {
                String[] f = line.trim().split("\\s+");
                // local_address is field 1, state 0A is LISTEN
                if (f.length > 3 && f[1].endsWith(":" + hexPort) && f[3].equals("0A")) {
                    local.add(f[1]);
                }
            }
        }
        // 127.0.0.1 is 0100007F in tcp, ::ffff:127.0.0.1 (a JDK dual-stack socket) ends so in tcp6;
        // the wildcard is all zeros in both
        return !local.isEmpty()
                && local.stream()
                        .allMatch(a -> a.startsWith("0100007F:") || a.startsWith("0000000000000000FFFF00000100007F:"));
    }

    private static Connection connect(Shardgate router, String schema, String user, String password)
            throws SQLException {
        return Driver.MYSQL.connect(
                router.mysqlPort(),
                schema,
                user,
                password,
                Map.of("sslMode", "DISABLED", "allowPublicKeyRetrieval", "true"));
    }

    private static void logInsAndQueries(Shardgate router) throws SQLException {
        for (Driver driver : Driver.values()) {
            try (Connection c = driver.connect(router.mysqlPort(), ProxyCluster.SCHEMA, "app", APP_PASSWORD);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM secret_rows WHERE id = 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(ROW_MARKER);
            }
            SQLException e = catchThrowableOfType(
                    SQLException.class,
                    () -> driver.connect(router.mysqlPort(), ProxyCluster.SCHEMA, "app", WRONG_PASSWORD)
                            .close());
            assertThat((Object) e).isNotNull();
            assertThat(e.getErrorCode()).isEqualTo(1045);
        }
        try (Connection c = connect(router, ProxyCluster.SCHEMA, "app", APP_PASSWORD);
                Statement s = c.createStatement()) {
            // prepared, too: the binary protocol's rows
            try (var ps = c.prepareStatement("SELECT v FROM secret_rows WHERE id = ?")) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo(ROW_MARKER);
                }
            }
        }
    }

    private void changeConfiguration(Shardgate router) throws Exception {
        // HTTP: add a user with a plaintext password, based on the GET (its <hidden> backend password included)
        JsonNode current = JSON.readTree(get(router, "/api/config").body());
        ObjectNode documents = (ObjectNode) current.get("documents");
        documents.put(
                "users",
                "[{\"name\":\"app\",\"password\":\"" + APP_PASSWORD + "\"},{\"name\":\"late\",\"password\":\""
                        + LATE_PASSWORD + "\"}]");
        HttpResponse<String> put = http.send(
                HttpRequest.newBuilder(uri(router, "/api/config"))
                        .PUT(HttpRequest.BodyPublishers.ofString(current.toString()))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        awaitVersion(router, JSON.readTree(put.body()).get("version").asLong());
        connect(router, ProxyCluster.SCHEMA, "late", LATE_PASSWORD).close();

        // SQL admin: another user, loaded to runtime
        try (Connection admin = Driver.MARIADB.connect(router.adminPort(), null, "admin", ADMIN_PASSWORD);
                Statement s = admin.createStatement()) {
            s.executeUpdate("INSERT INTO users (name, password) VALUES ('sqluser', '" + SQL_PASSWORD + "')");
            s.execute("LOAD MYSQL USERS TO RUNTIME");
        }
        // the router applies the version when ZooKeeper's watch tells it
        eventually(() -> {
            try {
                connect(router, ProxyCluster.SCHEMA, "sqluser", SQL_PASSWORD).close();
                return true;
            } catch (SQLException e) {
                return false;
            }
        });
    }

    /** Every row of the admin tables that hold passwords, as text. */
    private static String adminTables(Shardgate router) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (Connection admin = Driver.MARIADB.connect(router.adminPort(), null, "admin", ADMIN_PASSWORD);
                Statement s = admin.createStatement()) {
            for (String table : List.of("users", "runtime_users", "hostgroups", "runtime_hostgroups")) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            text.append(rs.getMetaData().getColumnLabel(i))
                                    .append('=')
                                    .append(rs.getString(i))
                                    .append(' ');
                        }
                        text.append('\n');
                    }
                }
            }
        }
        assertThat(text).contains("password_hash=*").contains("password=<hidden>");
        return text.toString();
    }

    private static void awaitVersion(Shardgate router, long version) throws InterruptedException {
        eventually(() -> router.configuration().version() >= version);
    }

    private static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 30 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private HttpResponse<String> get(Shardgate router, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(router, path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(Shardgate router, String path) {
        return URI.create("http://127.0.0.1:" + router.httpPort() + path);
    }

    /** The data of every node under {@link #ROOT}, read raw with Curator. */
    private static String zooKeeperText(String connectString) throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100))) {
            client.start();
            client.blockUntilConnected(30, TimeUnit.SECONDS);
            StringBuilder text = new StringBuilder();
            collect(client, ROOT, text);
            return text.toString();
        }
    }

    private static void collect(CuratorFramework client, String path, StringBuilder text) throws Exception {
        byte[] data = client.getData().forPath(path);
        if (data != null) {
            text.append(path)
                    .append(": ")
                    .append(new String(data, StandardCharsets.UTF_8))
                    .append('\n');
        }
        for (String child : client.getChildren().forPath(path)) {
            collect(client, path + "/" + child, text);
        }
    }
}
