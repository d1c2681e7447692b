package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.server.RouterProcess;
import io.shardgate.move.ProgressCodec;
import io.shardgate.move.TableCopy;
import io.shardgate.router.move.MoveLog;
import io.shardgate.router.move.MoveRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A move outlives a SIGKILLed router: two routers, each in its own JVM, share one ZooKeeper and
 * three MariaDB shards writing row-based binary logs. Hostgroup 30 takes buckets 12-13 of {@code
 * orders} from hostgroup 20 while the mover's JVM is killed in the middle of the copy, then buckets
 * 14-15 while the (other) mover is killed in the middle of the catch-up. Each time the other router
 * takes the move over and finishes it, while clients read and write through it; afterwards every
 * acknowledged write is there once, on the shard the new rules name, the shards together equal an
 * unsharded reference that received the same writes, and the clients saw no error.
 *
 * <p>The kills land in their phase by construction, not by timing: mid-copy, the copy is throttled
 * and the kill follows its first stored chunk; mid-catch-up, a row the catch-up must re-read is
 * locked on the source (by a transaction the test holds open) once the copy has passed it, and the
 * kill follows once the move is catching up (it cannot get past that row while the lock is held).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MoveRouterKillIT {
    private static final Duration PATIENCE = MoveProbe.PATIENCE;
    private static final String ROOT = "/shardgate/move-router-kill-it";
    private static final int BUCKETS = 16;
    private static final int ROWS = 20_000;
    private static final int CLIENTS = 4;
    private static final int KEYS_PER_CLIENT = 400;
    private static final String ORDERS =
            "CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40)) ENGINE=InnoDB";

    @TempDir
    static Path dir;

    private static MoveShards shards;
    private static MariaDbServer reference;
    private static EmbeddedZooKeeper zooKeeper;
    private static CuratorFramework curator;
    private static MoveProbe probe;
    private static final RouterProcess[] routers = new RouterProcess[2];
    private static final int[] httpPorts = new int[2];
    /** The hostgroup the rules name for each bucket (as the moves done so far left them). */
    private static final int[] owner = new int[BUCKETS];

    @BeforeAll
    static void start() throws Exception {
        shards = MoveShards.start(ORDERS);
        reference = MariaDbServer.builder()
                .database("shop")
                .innodbBufferPoolSize("32M")
                .start();
        try (Connection c = reference();
                Statement s = c.createStatement()) {
            s.execute(ORDERS);
        }
        for (int b = 0; b < BUCKETS; b++) {
            owner[b] = b < 8 ? 10 : 20;
        }
        shards.preload(reference(), ROWS, BUCKETS, b -> owner[b]);
        zooKeeper = new EmbeddedZooKeeper(dir.resolve("zookeeper"), 0);
        zooKeeper.start();
        curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + zooKeeper.port(), new RetryOneTime(100));
        curator.start();
        probe = new MoveProbe(new MoveLog(curator, ROOT));
        for (int i = 0; i < 2; i++) {
            int port = RouterProcess.freePort();
            httpPorts[i] = RouterProcess.freePort();
            Path home = Files.createDirectories(dir.resolve("router-" + i));
            routers[i] = new RouterProcess(home, yaml(home, port, httpPorts[i]), port);
            routers[i].start();
        }
    }

    private static String yaml(Path home, int port, int httpPort) {
        return String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: " + port + ", http_port: " + httpPort + ", admin_port: 0, data_dir: \""
                        + home.resolve("data") + "\"}",
                "zookeeper: {connect: \"127.0.0.1:" + zooKeeper.port() + "\", root: " + ROOT
                        + ", session_timeout_millis: 3000}",
                "users: [{name: app, password: app}]",
                "hostgroups:",
                shards.hostgroupsYaml(),
                "schemas:",
                "  - name: shop",
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: orders, strategy: hash, column: id, buckets: " + BUCKETS
                        + ", hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
                "");
    }

    @AfterAll
    static void stop() throws Exception {
        for (RouterProcess r : routers) {
            if (r != null) {
                r.close();
            }
        }
        for (AutoCloseable c : new AutoCloseable[] {curator, zooKeeper, reference, shards}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @Order(1)
    void theOtherRouterFinishesAMoveWhoseRouterWasKilledMidCopy() throws Exception {
        moveWithTheMoverKilled(0, 12, 13, 2000, (id, survivor) -> {
            MoveRecord copying = probe.awaitRecord(id, r -> MoveProbe.copyProgress(r) != null);
            TableCopy.Progress p = MoveProbe.copyProgress(copying);
            assertThat(p.done())
                    .as("the copy has chunks left: %s", ProgressCodec.encode(p))
                    .isFalse();
            return () -> {};
        });
    }

    @Test
    @Order(2)
    void theOtherRouterFinishesAMoveWhoseRouterWasKilledMidCatchUp() throws Exception {
        long row = MoveProbe.firstKeyIn(ROWS / 4, BUCKETS, 14, 15); // a preloaded row no client touches
        moveWithTheMoverKilled(1, 14, 15, 2000, (id, survivor) -> {
            // changed after the copy's start position: the catch-up reads it again on the source
            String change = "UPDATE orders SET amount = amount + 1000000 WHERE id = " + row;
            Connection lock = probe.holdTheCatchUp(
                    id,
                    row,
                    () -> {
                        try (Connection c = client(survivor);
                                Statement s = c.createStatement()) {
                            assertThat(s.executeUpdate(change)).isEqualTo(1);
                        }
                        try (Connection c = reference();
                                Statement s = c.createStatement()) {
                            s.executeUpdate(change);
                        }
                    },
                    shards.direct(20));
            // the copy ended and the catch-up runs: it cannot get past the locked row
            probe.awaitRecord(id, r -> r.state().equals("catching_up"));
            return () -> {
                lock.rollback();
                lock.close();
            };
        });
    }

    /** What a phase does before the kill; returns what to undo once the mover is dead. */
    @FunctionalInterface
    private interface BeforeKill {
        AutoCloseable arrange(String id, RouterProcess survivor) throws Exception;
    }

    private void moveWithTheMoverKilled(int round, int lo, int hi, int copyRowsPerSecond, BeforeKill beforeKill)
            throws Exception {
        int mover = awaitMover();
        RouterProcess killed = routers[mover];
        RouterProcess survivor = routers[1 - mover];
        List<List<Long>> keys = MoveLoad.ownKeys(round, CLIENTS, KEYS_PER_CLIENT);
        MoveLoad load = new MoveLoad(survivor::port, MoveRouterKillIT::reference, keys, round);
        String id;
        MoveRecord atKill;
        long killedAtNanos;
        JsonNode done;
        try {
            load.awaitMore(100, PATIENCE.toSeconds());
            id = probe.start(httpPorts[1 - mover], lo, hi, copyRowsPerSecond);
            AutoCloseable undo = beforeKill.arrange(id, survivor);
            killed.kill();
            killedAtNanos = System.nanoTime();
            atKill = probe.record(id);
            undo.close();
            done = probe.awaitEnd(httpPorts[1 - mover], id);
            load.awaitMore(200, PATIENCE.toSeconds()); // the clients go on under the new rules
        } finally {
            load.close();
        }
        long resumedInMillis = (System.nanoTime() - killedAtNanos) / 1_000_000;
        assertThat(done.get("state").asText()).as("the move: %s", done).isEqualTo("done");
        assertThat(awaitMover()).as("the survivor is the mover").isEqualTo(1 - mover);
        for (int b = lo; b <= hi; b++) {
            owner[b] = 30;
        }
        assertThat(load.errors).as("client errors on the surviving router").isEmpty();
        assertThat(load.wrongReads)
                .as("reads that missed the client's own last write")
                .isEmpty();
        OrdersContents contents;
        try (Connection ref = reference()) {
            contents = OrdersContents.compare(shards, ref, BUCKETS, b -> owner[b]);
        }
        assertThat(contents.misplaced())
                .as(
                        "rows away from the shard the rules name (%d)",
                        contents.misplaced().size())
                .isEqualTo(List.of());
        assertThat(contents.duplicated()).as("rows on several shards").isEqualTo(List.of());
        assertThat(OrdersContents.first(contents.differences()))
                .as(
                        "differences from the reference (%d)",
                        contents.differences().size())
                .isEqualTo(List.of());
        assertThat(survivor.output()).doesNotContain("LEAK:");
        assertThat(killed.output()).doesNotContain("LEAK:");
        System.out.printf(
                "MoveRouterKillIT: buckets %d-%d, mover killed while %s (rows copied before the kill %d);"
                        + " done %d ms after the kill: rows copied %d, binlog rows %d, rows deleted on the source"
                        + " %d, statements held %d ms; clients: %d writes acknowledged, %d reads, 0 errors; rows"
                        + " per hostgroup %s, reference diff empty%n",
                lo,
                hi,
                atKill.state(),
                atKill.progress().getOrDefault("rows_copied", 0L),
                resumedInMillis,
                done.path("progress").path("rows_copied").asLong(),
                done.path("progress").path("binlog_rows").asLong(),
                done.path("progress").path("rows_deleted_on_source").asLong(),
                done.path("progress").path("hold_millis").asLong(),
                load.acknowledged.get(),
                load.reads.get(),
                contents.perHostgroup());
        assertThat(atKill.state()).as("the phase the kill hit").isIn("copying", "catching_up");
        killed.start(); // back for the next move, as the one that does not run it
    }

    /** The index of the router that holds the mover's latch (the first latch node's participant). */
    private static int awaitMover() throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            String latch = ROOT + "/moves-leader";
            if (curator.checkExists().forPath(latch) != null) {
                List<String> nodes = new ArrayList<>(curator.getChildren().forPath(latch));
                nodes.sort(Comparator.comparing(n -> n.substring(n.lastIndexOf("latch-"))));
                if (!nodes.isEmpty()) {
                    String participant =
                            new String(curator.getData().forPath(latch + "/" + nodes.get(0)), StandardCharsets.UTF_8);
                    for (int i = 0; i < 2; i++) {
                        if (participant.endsWith(":" + routers[i].port()) && routers[i].alive()) {
                            return i;
                        }
                    }
                }
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("no live router holds the mover's latch within " + PATIENCE);
            }
            Thread.sleep(50);
        }
    }

    private static Connection client(RouterProcess router) throws SQLException {
        return Driver.MARIADB.connect(router.port(), "shop", "app", "app");
    }

    private static Connection reference() throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mariadb://" + reference.address() + "/shop?user=root&password=" + reference.rootPassword());
    }
}
