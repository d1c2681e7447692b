package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.move.binlog.BinlogPosition;
import io.shardgate.router.Main;
import io.shardgate.router.move.MoveRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A whole table of a {@code table} rule ({@code orders} on hostgroup 20) moves to hostgroup 30
 * ({@code "buckets": "table"}) under a read/write load through the router; the move ends done with
 * the source's copy kept and followed by the reverse stream; the reverse switches it back; a second
 * move is cleaned up. Real MariaDB servers with row-based binary logs, in-process ZooKeeper.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WholeTableMoveIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROOT = "/shardgate/whole-table-move-it";
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int ROWS = 5_000;
    private static final int CLIENTS = 4;
    private static final int KEYS_PER_CLIENT = 300;
    private static final String TABLE_MOVE =
            "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"table\", \"to\": 30}";

    @TempDir
    static Path dir;

    private static MoveCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = MoveCluster.start(
                dir,
                ROOT,
                ROWS,
                "",
                String.join(
                        "\n",
                        "{name: orders, strategy: table, hostgroup: 20}",
                        "{name: notes, strategy: hash, column: id, buckets: 16, hostgroups: {10: \"0-7\", 20: \"8-15\"}}"),
                b -> 20);
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void requestsThatAreNotAWholeTableMoveOfATableRuleGet400WithTheReason() throws Exception {
        HttpResponse<String> hash = post("/api/moves", TABLE_MOVE.replace("orders", "notes"));
        assertThat(hash.statusCode()).as(hash.body()).isEqualTo(400);
        assertThat(hash.body()).contains("strategy hash");
        HttpResponse<String> buckets = post("/api/moves", TABLE_MOVE.replace("\"table\", \"to\"", "\"0-3\", \"to\""));
        assertThat(buckets.statusCode()).as(buckets.body()).isEqualTo(400);
        assertThat(buckets.body()).contains("not sharded by hash (strategy table)");
        HttpResponse<String> there = post("/api/moves", TABLE_MOVE.replace("30", "20"));
        assertThat(there.statusCode()).as(there.body()).isEqualTo(400);
        assertThat(there.body()).contains("already");
    }

    @Test
    @Order(2)
    void theTableMovesUnderLoadIsStreamedBackAndReversedWithoutAClientError() throws Exception {
        MoveLoad load = load(0);
        JsonNode done;
        JsonNode reversed;
        String id;
        long atSwitch;
        try {
            load.awaitMore(100, PATIENCE.toSeconds());
            HttpResponse<String> started = post("/api/moves", TABLE_MOVE);
            assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
            id = JSON.readTree(started.body()).get("id").asText();
            done = cluster.probe.awaitEnd(cluster.router.httpPort(), id);
            assertThat(done.get("state").asText()).as("the move: %s", done).isEqualTo("done");
            atSwitch = load.acknowledged.get();
            load.awaitMore(300, PATIENCE.toSeconds()); // writes after the switch: on the target only
        } finally {
            load.close();
        }
        assertThat(load.errors).as("client errors during the move").isEmpty();
        assertThat(load.wrongReads)
                .as("reads that missed the client's own last write")
                .isEmpty();
        assertThat(differences(30)).as("the target against the reference").isEmpty();
        assertThat(done.path("progress").has("rows_deleted_on_source")).isFalse();
        // the writes after the switch reach the source by the reverse stream
        assertThat(awaitSameAsReference(20))
                .as("the source against the reference")
                .isEmpty();
        MoveRecord streaming = cluster.probe.record(id);
        assertThat(streaming.streamingBack()).as("%s", streaming).isTrue();
        System.out.printf(
                "WholeTableMoveIT: forward move done: rows copied %d, binlog rows %d, statements held %d ms;"
                        + " clients %d writes acknowledged (%d before the switch), %d reads, 0 errors%n",
                done.path("progress").path("rows_copied").asLong(),
                done.path("progress").path("binlog_rows").asLong(),
                done.path("progress").path("hold_millis").asLong(),
                load.acknowledged.get(),
                atSwitch,
                load.reads.get());

        MoveLoad again = load(1);
        try {
            again.awaitMore(100, PATIENCE.toSeconds());
            HttpResponse<String> reverse = post("/api/moves/" + id + "/reverse", "");
            assertThat(reverse.statusCode()).as(reverse.body()).isEqualTo(200);
            reversed = cluster.probe.awaitEnd(cluster.router.httpPort(), id);
            assertThat(reversed.get("state").asText())
                    .as("the reverse: %s", reversed)
                    .isEqualTo("reversed");
            again.awaitMore(300, PATIENCE.toSeconds()); // on the source again
        } finally {
            again.close();
        }
        assertThat(again.errors).as("client errors during the reverse").isEmpty();
        assertThat(again.wrongReads).isEmpty();
        assertThat(differences(20))
                .as("the source against the reference after the reverse")
                .isEmpty();
        assertThat(post("/api/moves/" + id + "/reverse", "").statusCode()).isEqualTo(409);
        assertThat(post("/api/moves/" + id + "/cleanup", "").statusCode()).isEqualTo(409);
        System.out.printf(
                "WholeTableMoveIT: reversed: reverse stream rows %d, statements held %d ms; clients %d writes"
                        + " acknowledged, 0 errors%n",
                reversed.path("progress").path("reverse_rows").asLong(),
                reversed.path("progress").path("reverse_hold_millis").asLong(),
                again.acknowledged.get());
    }

    @Test
    @Order(3)
    void aMoveCleanedUpLeavesNoRowOnTheSourceAndCannotBeReversed() throws Exception {
        HttpResponse<String> stale = post("/api/moves", TABLE_MOVE);
        assertThat(stale.statusCode())
                .as("the reversed move's copy is on the target")
                .isEqualTo(400);
        assertThat(stale.body()).contains("holds rows on the target hostgroup 30");
        try (Connection c = cluster.shards.direct(30);
                Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM shop.orders");
        }
        HttpResponse<String> started = post("/api/moves", TABLE_MOVE);
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String id = JSON.readTree(started.body()).get("id").asText();
        assertThat(cluster.probe
                        .awaitEnd(cluster.router.httpPort(), id)
                        .get("state")
                        .asText())
                .isEqualTo("done");
        assertThat(post("/api/moves", TABLE_MOVE.replace("30", "10")).statusCode())
                .as("another move of the table while the reverse stream runs")
                .isEqualTo(409);
        try (Connection c = cluster.client();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("ALTER TABLE orders ADD COLUMN extra INT"))
                    .as("DDL while the reverse stream follows the table's shape")
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(1235));
        }
        // the target restarts: the reverse stream's job stops, the next resumes from its stored position
        insertThroughTheRouter(9_000_000, 10, 1, "streamed");
        MoveRecord beforeRestart = awaitStoredPosition(id);
        cluster.shards.stop(30);
        cluster.shards.restart(30);
        insertThroughTheRouter(9_100_000, 50, 2, "after restart");
        assertThat(awaitSame(30, 20))
                .as("the source against the restarted target")
                .isEmpty();
        MoveRecord resumed = cluster.probe.record(id);
        assertThat(resumed.streamingBack()).as("%s", resumed).isTrue();
        assertThat(resumed.progress().getOrDefault("resumed", 0L))
                .as("the stream's job stopped on the lost target and went on: %s (before: %s)", resumed, beforeRestart)
                .isGreaterThan(beforeRestart.progress().getOrDefault("resumed", 0L));
        long onSource = count(20);
        assertThat(onSource).isPositive();

        String[] cleanup = cli("cleanup", id); // the command line's way, over the same HTTP API
        assertThat(cleanup[0]).as("%s", String.join("", cleanup)).isEqualTo("0");
        assertThat(cleanup[1]).contains("move " + id + " cleaning up its source");
        JsonNode cleaned = cluster.probe.awaitEnd(cluster.router.httpPort(), id);
        assertThat(cleaned.get("state").asText()).as("%s", cleaned).isEqualTo("done");
        assertThat(cleaned.path("progress").path("rows_deleted_on_source").asLong())
                .isEqualTo(onSource);
        assertThat(count(20)).as("rows left on the source").isZero();
        assertThat(differences(30)).as("the target against the reference").isEmpty();
        HttpResponse<String> reverse = post("/api/moves/" + id + "/reverse", "");
        assertThat(reverse.statusCode()).isEqualTo(409);
        assertThat(reverse.body()).contains("cleaned up its source");
        assertThat(post("/api/moves/" + id + "/cleanup", "").statusCode()).isEqualTo(409);
        String[] again = cli("reverse", id);
        assertThat(again[0]).isEqualTo("1");
        assertThat(again[2]).contains("409").contains("cleaned up its source");
        writeThroughTheRouter("INSERT INTO orders VALUES (9050001, 1, 'after cleanup')");
        try (Connection c = cluster.shards.direct(30);
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT note FROM shop.orders WHERE id = 9050001")) {
            assertThat(rs.next()).as("a write after the cleanup, on the target").isTrue();
            assertThat(rs.getString(1)).isEqualTo("after cleanup");
        }
    }

    @Test
    @Order(4)
    void anotherRouterResumesTheReverseStreamFromItsStoredPositionAndReverses() throws Exception {
        // the table is on 30 since the cleaned-up move; hostgroup 20 is empty: move it there
        HttpResponse<String> started = post("/api/moves", TABLE_MOVE.replace("30", "20"));
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String id = JSON.readTree(started.body()).get("id").asText();
        assertThat(cluster.probe
                        .awaitEnd(cluster.router.httpPort(), id)
                        .get("state")
                        .asText())
                .isEqualTo("done");
        insertThroughTheRouter(9_200_000, 10, 3, "before hand-over");
        MoveRecord before = awaitStoredPosition(id);
        cluster.handOver(); // the mover stops; the new router takes its latch and the move's stream
        insertThroughTheRouter(9_300_000, 10, 4, "after hand-over");
        assertThat(awaitSame(20, 30))
                .as("the source (30) against the target (20)")
                .isEmpty();
        MoveRecord after = cluster.probe.record(id);
        assertThat(after.streamingBack()).as("%s", after).isTrue();
        assertThat(BinlogPosition.parse(after.checkpoints().get(MoveRecord.REVERSE_APPLIED)))
                .as("the new router's stream went on from the stored position %s", before)
                .isGreaterThan(BinlogPosition.parse(before.checkpoints().get(MoveRecord.REVERSE_APPLIED)));

        try (Connection admin = cluster.admin(); // the SQL admin's way, through the same move control
                Statement s = admin.createStatement()) {
            try (var rs = s.executeQuery("SELECT state, reverse_rows FROM stats_moves WHERE id = '" + id + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("done");
                assertThat(rs.getLong(2)).as("reverse_rows").isPositive();
            }
            assertThat(s.executeUpdate("UPDATE stats_moves SET state = 'reversing' WHERE id = '" + id + "'"))
                    .isEqualTo(1);
        }
        JsonNode reversed = cluster.probe.awaitEnd(cluster.router.httpPort(), id);
        assertThat(reversed.get("state").asText()).as("%s", reversed).isEqualTo("reversed");
        writeThroughTheRouter("INSERT INTO orders VALUES (9400001, 5, 'after the reverse')");
        assertThat(differences(30)).as("hostgroup 30 serves the table again").isEmpty();
        try (Connection admin = cluster.admin();
                Statement s = admin.createStatement()) {
            assertThatThrownBy(() ->
                            s.executeUpdate("UPDATE stats_moves SET state = 'cleaning_source' WHERE id = '" + id + "'"))
                    .hasMessageContaining("cannot clean up")
                    .hasMessageContaining("the source serves the table");
        }
    }

    /** Waits until the move's reverse stream stored a position; the record then. */
    private static MoveRecord awaitStoredPosition(String id) throws Exception {
        MoveRecord r = cluster.probe.record(id);
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!r.checkpoints().containsKey(MoveRecord.REVERSE_APPLIED) && System.nanoTime() < end) {
            Thread.sleep(100);
            r = cluster.probe.record(id);
        }
        assertThat(r.checkpoints()).as("the stream's stored position").containsKey(MoveRecord.REVERSE_APPLIED);
        return r;
    }

    /** {@code shardgate admin move <action> <id>}: its exit code, standard output and standard error. */
    private static String[] cli(String action, String id) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("admin", "move", action, id, "--url", "http://127.0.0.1:" + cluster.router.httpPort());
        return new String[] {Integer.toString(exit), out.toString(), err.toString()};
    }

    private static MoveLoad load(int round) {
        return new MoveLoad(
                cluster.router::mysqlPort,
                cluster::reference,
                MoveLoad.ownKeys(round, CLIENTS, KEYS_PER_CLIENT),
                round);
    }

    /** The rows of {@code orders} on {@code hostgroup} that differ from the reference's (first ten). */
    private static List<String> differences(int hostgroup) throws SQLException {
        try (Connection ref = cluster.reference()) {
            return differences(OrdersContents.rows(ref), "the reference", hostgroup);
        }
    }

    /** The rows of {@code orders} on {@code hostgroup} that differ from {@code expected} (first ten). */
    private static List<String> differences(Map<Long, String> expected, String from, int hostgroup)
            throws SQLException {
        Map<Long, String> got;
        try (Connection c = cluster.shards.direct(hostgroup)) {
            got = OrdersContents.rows(c);
        }
        List<String> out = new ArrayList<>();
        expected.forEach((key, row) -> {
            if (!row.equals(got.get(key))) {
                out.add("row " + key + ": " + from + " " + row + ", hostgroup " + hostgroup + " " + got.get(key));
            }
        });
        got.keySet().stream()
                .filter(key -> !expected.containsKey(key))
                .forEach(key -> out.add("row " + key + " only on hostgroup " + hostgroup));
        return OrdersContents.first(out);
    }

    /** Waits until {@code hostgroup} holds the reference's rows; the differences left at the deadline. */
    private static List<String> awaitSameAsReference(int hostgroup) throws Exception {
        return awaitEmpty(() -> differences(hostgroup));
    }

    /** Waits until {@code hostgroup} holds the rows of hostgroup {@code as}; the differences left at the deadline. */
    private static List<String> awaitSame(int as, int hostgroup) throws Exception {
        return awaitEmpty(() -> {
            try (Connection c = cluster.shards.direct(as)) {
                return differences(OrdersContents.rows(c), "hostgroup " + as, hostgroup);
            }
        });
    }

    private static List<String> awaitEmpty(java.util.concurrent.Callable<List<String>> differences) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> left = differences.call();
        while (!left.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(200);
            left = differences.call();
        }
        return left;
    }

    /** Inserts {@code rows} rows from key {@code first + 1} on through the router (and the reference). */
    private static void insertThroughTheRouter(long first, int rows, int amount, String note) throws Exception {
        for (long key = first + 1; key <= first + rows; key++) {
            writeThroughTheRouter("INSERT INTO orders VALUES (" + key + ", " + amount + ", '" + note + "')");
        }
    }

    /** Runs {@code sql} through the router (also on the reference), again while the shard is not served yet. */
    private static void writeThroughTheRouter(String sql) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try (Connection c = cluster.client();
                    Statement s = c.createStatement()) {
                assertThat(s.executeUpdate(sql)).isEqualTo(1);
                break;
            } catch (SQLException e) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("not served again: " + e, e);
                }
                Thread.sleep(100);
            }
        }
        try (Connection ref = cluster.reference();
                Statement s = ref.createStatement()) {
            s.executeUpdate(sql);
        }
    }

    private static long count(int hostgroup) throws SQLException {
        try (Connection c = cluster.shards.direct(hostgroup);
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM shop.orders")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return cluster.probe.send(cluster.router.httpPort(), "POST", path, body);
    }
}
