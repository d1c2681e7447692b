package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.move.ProgressCodec;
import io.shardgate.move.TableCopy;
import io.shardgate.router.move.MoveLog;
import io.shardgate.router.move.MoveRecord;
import io.shardgate.sharding.rule.KeyHash;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * What the move fault ITs ask of a move: start it over a router's HTTP API, read its record
 * (checkpoints included) straight from ZooKeeper, wait for a point of its run, and tell whether the
 * mover's read of a source waits for a row lock.
 */
final class MoveProbe {
    static final Duration PATIENCE = Duration.ofMinutes(4);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final MoveLog moves;
    private final HttpClient http = HttpClient.newHttpClient();

    MoveProbe(MoveLog moves) {
        this.moves = moves;
    }

    /** Starts a move of {@code orders} buckets {@code lo-hi} to hostgroup 30; its id. */
    String start(int httpPort, int lo, int hi, long copyRowsPerSecond) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/api/moves"))
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"schema\": \"shop\", \"table\": \"orders\", \"buckets\": \"" + lo + "-" + hi
                                        + "\", \"to\": 30, \"copy_rows_per_second\": " + copyRowsPerSecond + "}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).get("id").asText();
    }

    /** {@code method} on the router's {@code path} with {@code body} (null: none); the answer. */
    HttpResponse<String> send(int httpPort, String method, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    MoveRecord record(String id) throws Exception {
        return moves.get(id).record();
    }

    /** Waits until the move's record satisfies {@code reached}; fails when the move ends first. */
    MoveRecord awaitRecord(String id, Predicate<MoveRecord> reached) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            MoveRecord r = record(id);
            if (reached.test(r)) {
                return r;
            }
            if (!r.active() || System.nanoTime() > end) {
                throw new AssertionError("the move did not reach the expected point: " + r);
            }
            Thread.sleep(10);
        }
    }

    /** Waits until the move ended (done, failed or cancelled); the router's HTTP view of it. */
    JsonNode awaitEnd(int httpPort, String id) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/api/moves/" + id))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode move = JSON.readTree(r.body());
            if (MoveRecord.ended(move.get("state").asText())) {
                return move;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("the move did not end within " + PATIENCE + ": " + move);
            }
            Thread.sleep(100);
        }
    }

    /** The first key from {@code from} on whose bucket (of {@code buckets}) is within {@code lo-hi}. */
    static long firstKeyIn(long from, int buckets, int lo, int hi) {
        long key = from;
        while (KeyHash.bucket(key, buckets) < lo || KeyHash.bucket(key, buckets) > hi) {
            key++;
        }
        return key;
    }

    /** The copy's stored progress of {@code orders} on hostgroup 20, or null before its first chunk. */
    static TableCopy.Progress copyProgress(MoveRecord r) {
        String stored = r.checkpoints().get("copy.20.orders");
        return stored == null ? null : ProgressCodec.decode(stored);
    }

    /** Whether the copy of hostgroup 20 is done or past key {@code key}. */
    static boolean copyPassed(MoveRecord r, long key) {
        TableCopy.Progress p = copyProgress(r);
        return p != null && (p.done() || ((Long) p.lastKey()[0]) > key);
    }

    /**
     * Holds a row lock on {@code key} in {@code source} (an open transaction) once the copy passed
     * it and before the copy ends, so that the catch-up, which must read the row again ({@code
     * change}, run and acknowledged first, changes it after the copy's start position), cannot get
     * past it: once the move is {@code catching_up} it stays there until the returned connection
     * rolls back or dies. Fails when the copy ended before the lock was taken (the catch-up might
     * have applied the change already): the copy must be throttled enough.
     */
    Connection holdTheCatchUp(String id, long key, Change change, Connection source) throws Exception {
        awaitRecord(id, r -> r.checkpoints().containsKey("start.20"));
        change.run();
        awaitRecord(id, r -> copyPassed(r, key));
        source.setAutoCommit(false);
        try (Statement s = source.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM orders WHERE id = " + key + " FOR UPDATE")) {
            assertThat(rs.next()).as("row %d on the source", key).isTrue();
        }
        TableCopy.Progress copy = copyProgress(record(id));
        assertThat(copy.done())
                .as("the copy (and so the catch-up, which starts after it) had not ended when the lock was taken")
                .isFalse();
        return source;
    }

    /** A change the test makes through a router (and on the reference). */
    @FunctionalInterface
    interface Change {
        void run() throws Exception;
    }
}
