package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.move.MoveLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A move cuts over while every client is inside a transaction on the moving table, as under
 * sysbench's oltp_read_write: such a transaction holds the table's metadata lock on the source
 * until it commits, so a cutover that held its next statement would wait for a lock that cannot be
 * granted, and every attempt would let go (the move failed after five). The router lets the
 * statements of a transaction that already touched a held table run, and acknowledges the hold only
 * once those transactions have ended; the move must end done with no client error, every
 * acknowledged write once on the shard the new rules name and the shards equal to the unsharded
 * reference.
 */
class MoveUnderTransactionsIT {
    private static final String ROOT = "/shardgate/move-under-transactions-it";
    private static final int BUCKETS = 16;
    private static final int ROWS = 8_000;
    private static final int CLIENTS = 8;
    private static final int KEYS_PER_CLIENT = 200;
    private static final String ORDERS =
            "CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL, note VARCHAR(40)) ENGINE=InnoDB";

    @TempDir
    static Path dir;

    private static MoveShards shards;
    private static MariaDbServer reference;
    private static EmbeddedZooKeeper zooKeeper;
    private static CuratorFramework curator;
    private static MoveProbe probe;
    private static Shardgate router;
    private static final int[] owner = new int[BUCKETS];

    @BeforeAll
    static void start() throws Exception {
        shards = MoveShards.start(Files.createDirectories(dir.resolve("shards")), ORDERS);
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
        router = Shardgate.start(RouterConfig.parse(String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0," + " data_dir: \""
                        + Files.createDirectories(dir.resolve("router")) + "\"}",
                "zookeeper: {connect: \"127.0.0.1:" + zooKeeper.port() + "\", root: " + ROOT + "}",
                "users: [{name: app, password: app}]",
                "hostgroups:",
                shards.hostgroupsYaml("monitor: {interval_millis: 500, timeout_millis: 3000}"),
                "schemas:",
                "  - name: shop",
                "    default_hostgroup: 10",
                "    tables:",
                "      - {name: orders, strategy: hash, column: id, buckets: " + BUCKETS
                        + ", hostgroups: {10: \"0-7\", 20: \"8-15\"}}",
                "")));
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {router, curator, zooKeeper, reference, shards}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aMoveCutsOverWhileEveryClientIsInsideATransactionOnTheTable() throws Exception {
        List<List<Long>> keys = new ArrayList<>();
        for (int client = 0; client < CLIENTS; client++) {
            List<Long> own = new ArrayList<>();
            for (int k = 0; k < KEYS_PER_CLIENT; k++) {
                own.add((long) k * CLIENTS + client + 1);
            }
            keys.add(own);
        }
        // 150 ms after each of a transaction's three statements: nearly always every client is inside
        // one, so a cutover that held their statements could never lock the source (5 attempts, failed)
        MoveLoad load = new MoveLoad(router::mysqlPort, MoveUnderTransactionsIT::reference, keys, 0, 150);
        JsonNode done;
        try {
            load.awaitMore(12, MoveProbe.PATIENCE.toSeconds());
            String id = probe.start(router.httpPort(), 12, 15, 0);
            done = probe.awaitEnd(router.httpPort(), id);
            load.awaitMore(12, MoveProbe.PATIENCE.toSeconds()); // transactions go on under the new rules
        } finally {
            load.close();
        }
        assertThat(done.get("state").asText()).as("the move: %s", done).isEqualTo("done");
        for (int b = 12; b <= 15; b++) {
            owner[b] = 30;
        }
        assertThat(load.errors).as("client errors").isEmpty();
        assertThat(load.wrongReads)
                .as("reads that missed the client's own last write")
                .isEmpty();
        OrdersContents contents;
        try (Connection ref = reference()) {
            contents = OrdersContents.compare(shards, ref, BUCKETS, b -> owner[b]);
        }
        assertThat(contents.misplaced())
                .as("rows away from the shard the rules name")
                .isEqualTo(List.of());
        assertThat(contents.duplicated()).as("rows on several shards").isEqualTo(List.of());
        assertThat(OrdersContents.first(contents.differences()))
                .as(
                        "differences from the reference (%d)",
                        contents.differences().size())
                .isEqualTo(List.of());
        System.out.printf(
                "MoveUnderTransactionsIT: buckets 12-15 moved under %d clients always in a transaction: rows copied"
                        + " %d, statements held %d ms, cleanup %d ms; %d transactions acknowledged, 0 errors; rows"
                        + " per hostgroup %s%n",
                CLIENTS,
                done.path("progress").path("rows_copied").asLong(),
                done.path("progress").path("hold_millis").asLong(),
                done.path("progress").path("cleanup_millis").asLong(),
                load.acknowledged.get(),
                contents.perHostgroup());
    }

    private static Connection reference() throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mariadb://" + reference.address() + "/shop?user=root&password=" + reference.rootPassword());
    }
}
