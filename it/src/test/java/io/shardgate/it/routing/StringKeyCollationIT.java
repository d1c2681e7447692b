package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.sharding.rule.KeyCollation;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * String sharding keys under a case-insensitive collation (issue 18, class 4): with {@code
 * key_collation: utf8mb4_general_ci} the router hashes a key by the collation's weights, so keys
 * MariaDB calls equal ('k' / 'K', 's' / 'ß', 'apple' / 'ÄPPLE') live on one shard: lookups find them
 * and a duplicate is refused by the shard's primary key as on one server. A rule hashing a key as
 * binary over a column schema tracking reports case-insensitive is refused until one is fixed. The
 * weight table itself is checked against the server for every BMP code point.
 */
class StringKeyCollationIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "keys",
                3,
                List.of(
                        "{name: words, strategy: hash, column: k, key_type: string, key_collation: utf8mb4_general_ci,"
                                + " buckets: 12, hostgroups: {10: \"0-3\", 20: \"4-7\", 30: \"8-11\"}}",
                        "{name: tokens, strategy: hash, column: k, key_type: string, buckets: 12,"
                                + " hostgroups: {10: \"0-3\", 20: \"4-7\", 30: \"8-11\"}}"),
                List.of());
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            // DDL through the router: schema tracking learns the columns and collations before the OK
            s.execute("CREATE TABLE words (k VARCHAR(40) NOT NULL PRIMARY KEY, n INT)"
                    + " DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci");
            s.execute("CREATE TABLE tokens (k VARCHAR(40) NOT NULL PRIMARY KEY, n INT)"
                    + " DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci");
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static int countEverywhere(String where) throws SQLException {
        int total = 0;
        for (int hg : List.of(10, 20, 30)) {
            try (Connection c = cluster.direct(hg);
                    ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM words WHERE " + where)) {
                rs.next();
                total += rs.getInt(1);
            }
        }
        return total;
    }

    @Test
    void keysTheCollationCallsEqualAreOneKeyOnOneShard() throws Exception {
        List<String> keys = List.of("apple", "straße", "k", "naïve", "Zoë", "\uD83D\uDE00 smile", "tail ");
        try (Connection c = cluster.proxied(Driver.MYSQL);
                Statement s = c.createStatement()) {
            int n = 0;
            for (String k : keys) {
                s.executeUpdate("INSERT INTO words (k, n) VALUES ('" + k + "', " + n++ + ")");
            }
            // MariaDB refuses each as a duplicate of a row above: so must the sharded table
            for (String twin : List.of("APPLE", "ÄPPLE", "K", "NAIVE", "zoe", "\uD83D\uDE01 SMILE", "tail")) {
                assertThatThrownBy(() -> s.executeUpdate("INSERT INTO words (k, n) VALUES ('" + twin + "', 99)"))
                        .as(twin)
                        .isInstanceOfSatisfying(
                                SQLException.class,
                                e -> assertThat(e.getErrorCode()).isEqualTo(1062));
            }
            // 'ß' weighs as one 's' under general_ci: 'STRASSE' is another key, as on one server
            s.executeUpdate("INSERT INTO words (k, n) VALUES ('STRASSE', 50)");
        }
        for (String k : keys) {
            assertThat(countEverywhere("k = '" + k + "'")).as(k).isEqualTo(1);
        }
        // every spelling finds its row, in text and prepared statements, on the one shard it routes to
        for (Driver driver : List.of(Driver.MYSQL, Driver.MARIADB)) {
            try (Connection c = cluster.proxied(driver);
                    PreparedStatement ps = c.prepareStatement("SELECT n FROM words WHERE k = ?");
                    Statement s = c.createStatement()) {
                for (String spelling : List.of("APPLE", "Äpple", "STRAßE", "k", "NAÏVE", "ZOE", "tail   ")) {
                    ps.setString(1, spelling);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next())
                                .as(driver + " prepared " + spelling)
                                .isTrue();
                    }
                    try (ResultSet rs = s.executeQuery("SELECT n FROM words WHERE k = '" + spelling + "'")) {
                        assertThat(rs.next()).as(driver + " text " + spelling).isTrue();
                    }
                }
                try (ResultSet rs =
                        s.executeQuery("SELECT k FROM words WHERE k IN ('ÄPPLE', 'K', 'strasse') ORDER BY k")) {
                    List<String> found = new ArrayList<>();
                    while (rs.next()) {
                        found.add(rs.getString(1));
                    }
                    assertThat(found).containsExactly("apple", "k", "STRASSE");
                }
            }
        }
    }

    @Test
    void aBinaryKeyOverACaseInsensitiveColumnIsRefusedUntilTheColumnIsBinary() throws Exception {
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            for (String sql : List.of(
                    "INSERT INTO tokens (k, n) VALUES ('K', 1)",
                    "SELECT n FROM tokens WHERE k = 'k'",
                    "SELECT COUNT(*) FROM tokens")) {
                assertThatThrownBy(() -> s.execute(sql)).as(sql).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(1235);
                    assertThat(e.getMessage())
                            .contains("table keys.tokens is hashed by k with key_collation: binary, but the"
                                    + " column's collation on the shards is utf8mb4_general_ci");
                });
            }
            // DDL is not refused: fixing the column through the router re-plans the table's statements
            s.execute("ALTER TABLE tokens MODIFY k VARCHAR(40) COLLATE utf8mb4_bin NOT NULL");
            s.executeUpdate("INSERT INTO tokens (k, n) VALUES ('K', 1), ('k', 2)");
            try (ResultSet rs = s.executeQuery("SELECT n FROM tokens WHERE k = 'k'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(2);
                assertThat(rs.next()).isFalse();
            }
        }
    }

    @Test
    void theGeneralCiWeightTableIsTheServersForEveryBmpCodePoint() throws Exception {
        int checked = 0;
        List<String> wrong = new ArrayList<>();
        try (Connection c = cluster.direct(10);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT seq, HEX(WEIGHT_STRING(CONVERT(CHAR(seq USING utf32) USING"
                        + " utf8mb4) COLLATE utf8mb4_general_ci)) FROM seq_0_to_65535 WHERE seq NOT BETWEEN 55296"
                        + " AND 57343 AND seq <> 32")) {
            while (rs.next()) {
                int cp = rs.getInt(1);
                String ours = HexFormat.of()
                        .withUpperCase()
                        .formatHex(KeyCollation.GENERAL_CI.keyBytes(new String(Character.toChars(cp))));
                if (!ours.equals(rs.getString(2))) {
                    wrong.add(Integer.toHexString(cp) + ": server " + rs.getString(2) + ", router " + ours);
                }
                checked++;
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(checked).isEqualTo(63_487);
    }
}
