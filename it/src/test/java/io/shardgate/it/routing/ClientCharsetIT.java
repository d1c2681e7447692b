package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client whose character set is latin1 (Connector/J with {@code characterEncoding=Cp1252}, which is
 * MySQL's latin1 and has the euro sign at 0x80, or
 * {@code SET NAMES latin1}) writes bytes that are not UTF-8. The router must read its literals in
 * latin1 to route by them, and write the SQL it renders for the shards in latin1 too: on two real
 * MariaDB shards, rows written by a latin1 client through split INSERTs, broadcast writes and
 * string-key routing hold exactly the characters the client sent, on the shard their key names,
 * and are found by a utf8mb4 client by the same key.
 */
class ClientCharsetIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "charsets",
                2,
                List.of(
                        "{name: words, strategy: hash, column: k, key_type: string, buckets: 8,"
                                + " hostgroups: {10: \"0-3\", 20: \"4-7\"}}",
                        "{name: labels, strategy: broadcast, hostgroups: [10, 20]}"),
                List.of());
        cluster.onEveryShard(
                "CREATE TABLE words (k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, w VARCHAR(20))"
                        + " DEFAULT CHARSET utf8mb4",
                "CREATE TABLE labels (id INT PRIMARY KEY, name VARCHAR(20)) DEFAULT CHARSET utf8mb4");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void empty() throws SQLException {
        cluster.onEveryShard("DELETE FROM words", "DELETE FROM labels");
    }

    private static Connection latin1(boolean prepared) throws SQLException {
        return cluster.proxied(
                Driver.MYSQL, Map.of("characterEncoding", "Cp1252", "useServerPrepStmts", String.valueOf(prepared)));
    }

    /** The rows of {@code table} on one shard, read directly as utf8mb4. */
    private static List<String> rows(int hostgroup, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = cluster.direct(hostgroup);
                ResultSet rs = c.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1) + "=" + rs.getString(2));
            }
        }
        return out;
    }

    private static List<String> everyShard(String sql) throws SQLException {
        List<String> out = new ArrayList<>(rows(10, sql));
        out.addAll(rows(20, sql));
        out.sort(null);
        return out;
    }

    @Test
    void aLatin1ClientsRowsKeepTheirCharactersOnEveryShard() throws Exception {
        try (Connection c = latin1(false);
                Statement s = c.createStatement()) {
            // rendered per shard (split) and sent to both (broadcast): both are SQL the router writes
            s.executeUpdate("INSERT INTO words (k, w) VALUES ('straße', 'ß'), ('café', 'é'), ('über', 'ü'),"
                    + " ('naïve', 'ï'), ('€uro', '€'), ('plain', 'a')");
            s.executeUpdate("INSERT INTO labels (id, name) VALUES (1, 'Größe'), (2, 'ÅÄÖ')");
            s.executeUpdate("UPDATE labels SET name = CONCAT(name, '±') WHERE id = 2");
        }
        assertThat(everyShard("SELECT k, w FROM words"))
                .containsExactly("café=é", "naïve=ï", "plain=a", "straße=ß", "über=ü", "€uro=€");
        assertThat(rows(10, "SELECT id, name FROM labels ORDER BY id"))
                .containsExactly("1=Größe", "2=ÅÄÖ±")
                .isEqualTo(rows(20, "SELECT id, name FROM labels ORDER BY id"));

        // each row where its key hashes, whatever the client's character set: a utf8mb4 client finds it
        try (Connection utf8 = cluster.proxied(Driver.MARIADB);
                PreparedStatement ps = utf8.prepareStatement("SELECT w FROM words WHERE k = ?")) {
            for (String k : List.of("straße", "café", "über", "naïve", "€uro")) {
                ps.setString(1, k);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).as(k).isTrue();
                }
            }
        }
    }

    @Test
    void aLatin1ClientFindsRowsByStringKeysInTextAndPreparedStatements() throws Exception {
        try (Connection utf8 = cluster.proxied(Driver.MARIADB);
                Statement s = utf8.createStatement()) {
            s.executeUpdate("INSERT INTO words (k, w) VALUES ('straße', '1'), ('café', '2'), ('€uro', '3')");
        }
        for (boolean prepared : new boolean[] {false, true}) {
            try (Connection c = latin1(prepared)) {
                for (String k : List.of("straße", "café", "€uro")) {
                    try (Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT w FROM words WHERE k = '" + k + "'")) {
                        assertThat(rs.next()).as("text " + k).isTrue();
                    }
                    try (PreparedStatement ps = c.prepareStatement("SELECT w FROM words WHERE k = ?")) {
                        ps.setString(1, k);
                        try (ResultSet rs = ps.executeQuery()) {
                            assertThat(rs.next())
                                    .as("prepared=" + prepared + " " + k)
                                    .isTrue();
                        }
                    }
                }
            }
        }
    }

    @Test
    void setNamesLatin1SwitchesTheDecodingAsTheServerDoes() throws Exception {
        try (Connection c = cluster.proxied(Driver.MYSQL);
                Statement s = c.createStatement()) {
            // the driver goes on sending UTF-8 bytes; after SET NAMES latin1 the server reads them as
            // latin1 (C3 A9 is "Ã©"), and so must the router when it renders the split INSERT
            s.execute("SET NAMES latin1");
            s.executeUpdate("INSERT INTO words (k, w) VALUES ('straße', 'ß'), ('café', 'é'), ('plain', 'a')");
        }
        assertThat(everyShard("SELECT k, w FROM words")).containsExactly("cafÃ©=Ã©", "plain=a", "straÃŸe=ÃŸ");
        try (Connection utf8 = cluster.proxied(Driver.MARIADB);
                PreparedStatement ps = utf8.prepareStatement("SELECT w FROM words WHERE k = ?")) {
            ps.setString(1, "cafÃ©");
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
            }
        }
    }
}
