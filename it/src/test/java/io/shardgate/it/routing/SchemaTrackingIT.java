package io.shardgate.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schema tracking on two real MariaDB shards: an INSERT without a column list into a sharded table
 * is split by the column order the shards report; DDL through the router is seen by the very next
 * statement; a table whose shards disagree is refused naming the difference; a row with another
 * value count gets MySQL's 1136.
 */
class SchemaTrackingIT {
    @TempDir
    static Path dataDir;

    private static ShardedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShardedCluster(
                dataDir,
                "tracked",
                2,
                List.of(
                        "{name: items, strategy: hash, column: id, buckets: 8, hostgroups: {10: \"0-3\", 20: \"4-7\"}}",
                        "{name: flags, strategy: broadcast}"),
                List.of());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void insertWithoutColumnListFollowsTheTrackedColumnsThroughDdlAndRefusesDisagreement() throws Exception {
        try (Connection c = cluster.proxied(Driver.MARIADB);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (name VARCHAR(20), id INT PRIMARY KEY)");
            // the key is the second column: placement proves the tracked order was used
            assertThat(s.executeUpdate("INSERT INTO items VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4), ('e', 5)"))
                    .isEqualTo(5);
            assertThat(rowsOn(10) + rowsOn(20)).isEqualTo(5);
            assertThat(rowsOn(10)).isPositive();
            assertThat(rowsOn(20)).isPositive();
            for (int id = 1; id <= 5; id++) {
                try (ResultSet rs = s.executeQuery("SELECT name FROM items WHERE id = " + id)) {
                    assertThat(rs.next()).as("row %d is where its key maps", id).isTrue();
                }
            }

            assertThatThrownBy(() -> s.execute("INSERT INTO items VALUES ('f', 6), ('g')"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("Column count doesn't match value count at row 2")
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1136));

            s.execute("ALTER TABLE items ADD COLUMN qty INT");
            assertThat(s.executeUpdate("INSERT INTO items VALUES ('h', 8, 3)")).isEqualTo(1);

            cluster.onShard(20, "ALTER TABLE items DROP COLUMN qty");
            s.execute("CREATE TABLE flags (code CHAR(1) PRIMARY KEY)"); // DDL through the router: a refresh
            assertThatThrownBy(() -> s.execute("INSERT INTO items VALUES ('i', 9, 1)"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("the shards of tracked.items differ: hostgroup 10 has (name, id, qty),"
                            + " hostgroup 20 has (name, id)")
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1235));
            // a column list does not depend on tracking
            assertThat(s.executeUpdate("INSERT INTO items (name, id) VALUES ('j', 10)"))
                    .isEqualTo(1);
        }
    }

    private static int rowsOn(int hostgroup) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM items")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
