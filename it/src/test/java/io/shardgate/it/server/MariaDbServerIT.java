package io.shardgate.it.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The launcher starts a real MariaDB that both drivers can use, and cleans up after itself. */
class MariaDbServerIT {

    private static MariaDbServer server;

    @BeforeAll
    static void startServer() {
        server = MariaDbServer.builder()
                .database("shop")
                .user("app", "app-'secret\\")
                .rootPassword("root-secret")
                .innodbBufferPoolSize("64M")
                .arg("--max-allowed-packet=32M")
                .start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void roundTripsRowsThroughEachDriver(Driver driver) throws SQLException {
        String table = "items_" + driver.name().toLowerCase(java.util.Locale.ROOT);
        try (Connection c = driver.connect(server.port(), "shop", "app", "app-'secret\\");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)");
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
                for (int id = 1; id <= 3; id++) {
                    insert.setInt(1, id);
                    insert.setString(2, "item-" + id + " \uD83D\uDE00");
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            List<String> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT id, name FROM " + table + " ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getInt(1) + ":" + rs.getString(2));
                }
            }
            assertThat(rows).containsExactly("1:item-1 \uD83D\uDE00", "2:item-2 \uD83D\uDE00", "3:item-3 \uD83D\uDE00");
        }
    }

    @Test
    void appliesServerOptionsAndExtraArguments() throws SQLException {
        try (Connection c = Driver.MARIADB.connect(server.port(), null, "root", "root-secret");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@innodb_buffer_pool_size, @@max_allowed_packet,"
                        + " @@bind_address, @@port, @@character_set_server, VERSION()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(64L << 20);
            assertThat(rs.getLong(2)).isEqualTo(32L << 20);
            assertThat(rs.getString(3)).isEqualTo("127.0.0.1");
            assertThat(rs.getInt(4)).isEqualTo(server.port());
            assertThat(rs.getString(5)).isEqualTo("utf8mb4");
            assertThat(rs.getString(6)).contains("MariaDB");
        }
    }

    @Test
    void createsTheUserWithMysqlNativePassword() throws SQLException {
        try (Connection c = Driver.MYSQL.connect(server.port(), null, "root", "root-secret");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT plugin FROM mysql.user WHERE user = 'app'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("mysql_native_password");
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void refusesAWrongPassword(Driver driver) {
        assertThatThrownBy(() ->
                        driver.connect(server.port(), "shop", "app", "wrong").close())
                .isInstanceOfSatisfying(
                        SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1045));
        assertThatThrownBy(() -> driver.connect(server.port(), null, "root", "").close())
                .isInstanceOfSatisfying(
                        SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1045));
    }

    @Test
    void closeStopsTheServerAndDeletesItsTemporaryDataDirectory() throws Exception {
        MariaDbServer temporary =
                MariaDbServer.builder().innodbBufferPoolSize("16M").start();
        Path dataDir = temporary.dataDir();
        ProcessHandle process = ProcessHandle.of(temporary.pid()).orElseThrow();
        assertThat(Files.isDirectory(dataDir.resolve("mysql"))).isTrue();

        temporary.close();

        assertThat(process.isAlive()).isFalse();
        assertThat(dataDir).doesNotExist();
        assertThatThrownBy(() -> Driver.MARIADB
                        .connect(temporary.port(), null, "root", "shardgate-root")
                        .close())
                .isInstanceOf(SQLException.class);
    }

    @Test
    void keepsANamedDataDirectoryAcrossRestarts(@TempDir Path dir) throws SQLException {
        Path dataDir = dir.resolve("data");
        try (MariaDbServer first = MariaDbServer.builder()
                        .dataDir(dataDir)
                        .database("keep")
                        .innodbBufferPoolSize("16M")
                        .start();
                Connection c = Driver.MARIADB.connect(first.port(), "keep", "root", "shardgate-root");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (v VARCHAR(10))");
            s.execute("INSERT INTO t VALUES ('kept')");
        }
        assertThat(dataDir.resolve("keep")).isDirectory();

        try (MariaDbServer second = MariaDbServer.builder()
                        .dataDir(dataDir)
                        .database("keep")
                        .user("late", "late-secret")
                        .innodbBufferPoolSize("16M")
                        .start();
                Connection c = Driver.MYSQL.connect(second.port(), "keep", "late", "late-secret");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM t")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("kept");
        }
        assertThat(dataDir.resolve("keep")).isDirectory();
    }
}
