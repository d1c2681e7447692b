package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.move.MoveLog;
import io.shardgate.router.move.MoveRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the routers do for a move, driven through the move's record in a real ZooKeeper with two
 * routers on it: DDL on a moving table is refused for the whole move; while a cutover holds the
 * move's tables, their statements (text and prepared) wait without reaching the shard and other
 * tables' run; each router acknowledges the hold only after the statements it dispatched before it
 * ended; released statements run; a statement held past the hold timeout fails with 1205.
 */
class MoveHoldIT {
    private static final String ROOT = "/shardgate/move-hold-it";
    /** A hang guard only. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    private static MariaDbServer shard;
    private static EmbeddedZooKeeper zooKeeper;
    private static Shardgate routerA;
    private static Shardgate routerB;
    private static CuratorFramework curator;
    private static MoveLog moves;

    @BeforeAll
    static void start() throws Exception {
        shard = MariaDbServer.builder().database("shop").user("app", "app").start();
        try (Connection c = Driver.MARIADB.connect(shard.port(), "shop", "app", "app");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, note VARCHAR(20))");
            s.execute("CREATE TABLE customers (id BIGINT PRIMARY KEY, note VARCHAR(20))");
            s.execute("INSERT INTO orders VALUES (0, 'first')");
        }
        zooKeeper = new EmbeddedZooKeeper(dir.resolve("zookeeper"), 0);
        zooKeeper.start();
        routerA = Shardgate.start(RouterConfig.parse(yaml("a")));
        routerB = Shardgate.start(RouterConfig.parse(yaml("b")));
        curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + zooKeeper.port(), new RetryOneTime(100));
        curator.start();
        moves = new MoveLog(curator, ROOT);
    }

    private static String yaml(String name) throws Exception {
        return String.join(
                "\n",
                // the records here are made by hand, not moves a mover could run
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, admin_port: 0, run_moves: false, data_dir: \""
                        + Files.createDirectories(dir.resolve(name)) + "\"}",
                "zookeeper: {connect: \"127.0.0.1:" + zooKeeper.port() + "\", root: " + ROOT + "}",
                "users: [{name: app, password: app}]",
                "hostgroups:",
                "  - {id: 10, writer: \"" + shard.address() + "\", user: app, password: app}",
                "schemas:",
                "  - {name: shop, default_hostgroup: 10}",
                "");
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {curator, routerA, routerB, zooKeeper, shard}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aMoveRefusesDdlOnItsTablesAndACutoverHoldsTheirStatements() throws Exception {
        MoveLog.Stored move = moves.create(new MoveRecord(
                null,
                "shop",
                List.of("orders"),
                List.of(10),
                20,
                "0-511",
                0,
                "copying",
                0,
                null,
                1,
                1,
                Map.of(),
                Map.of(),
                0));
        String id = move.record().id();
        try (Connection a = client(routerA);
                Connection b = client(routerB);
                Connection other = client(routerA)) {
            awaitTrue("both routers see the move", () -> refusesDdl(a) && refusesDdl(b));
            execute(a, "ALTER TABLE customers ADD COLUMN extra INT");
            execute(a, "INSERT INTO orders VALUES (1, 'copying')"); // statements run while copying

            // a statement in flight when the hold starts: the routers acknowledge only after it ended
            CompletableFuture<Void> slow = CompletableFuture.runAsync(() -> execute(b, "SELECT SLEEP(2) FROM orders"));
            awaitTrue("the slow statement reaches the shard", () -> running("SLEEP"));
            move = moves.update(move.record().withState("cutting_over", 2).withHold(1, 2), move.version());
            awaitTrue(
                    "both routers acknowledge the hold",
                    () -> acknowledged(id, 1).size() == 2);
            assertThat(running("SLEEP"))
                    .as("an acknowledgement means the statements dispatched before the hold ended")
                    .isFalse();
            slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

            CompletableFuture<Void> insert =
                    CompletableFuture.runAsync(() -> execute(a, "INSERT INTO orders VALUES (2, 'held')"));
            CompletableFuture<Void> prepared = CompletableFuture.runAsync(() -> executePrepared(b, 3));
            execute(other, "INSERT INTO customers (id, note) VALUES (1, 'not moving')"); // runs
            awaitTrue("both statements wait in the routers", () -> waiting(routerA) + waiting(routerB) == 2);
            assertThat(countOnShard("SELECT COUNT(*) FROM orders"))
                    .as("nothing held reached the shard")
                    .isEqualTo(2);
            assertThat(insert).isNotDone();

            move = moves.update(move.record().done(0, 3), move.version());
            insert.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            prepared.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(countOnShard("SELECT COUNT(*) FROM orders")).isEqualTo(4);
            awaitTrue("a finished move no longer refuses DDL", () -> !refusesDdl(a) && !refusesDdl(b));
        }
    }

    @Test
    void aStatementHeldPastTheHoldTimeoutFailsWith1205() throws Exception {
        MoveLog.Stored move = moves.create(new MoveRecord(
                null,
                "shop",
                List.of("customers"),
                List.of(10),
                20,
                "table",
                0,
                "cutting_over",
                1,
                null,
                1,
                1,
                Map.of(),
                Map.of(),
                0));
        try (Connection a = client(routerA)) {
            awaitTrue(
                    "the routers hold customers",
                    () -> acknowledged(move.record().id(), 1).size() == 2);
            assertThatThrownBy(() -> a.createStatement().executeQuery("SELECT * FROM customers"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1205))
                    .hasMessageContaining("cutover");
            execute(a, "SELECT 1 FROM orders LIMIT 1");
        } finally {
            MoveLog.Stored now = moves.get(move.record().id());
            moves.update(now.record().withState("cancelled", 4), now.version());
        }
    }

    private static boolean refusesDdl(Connection c) {
        try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE orders ADD COLUMN extra INT");
            s.execute("ALTER TABLE orders DROP COLUMN extra");
            return false;
        } catch (SQLException e) {
            if (e.getErrorCode() != 1235) {
                throw new AssertionError(e);
            }
            assertThat(e.getMessage()).contains("m-").contains("shop.orders").contains("is moving");
            return true;
        }
    }

    private static List<String> acknowledged(String id, int generation) throws Exception {
        return moves.acknowledged(id, generation);
    }

    private static int waiting(Shardgate router) {
        return router.moveHolds().waitingCount();
    }

    /** Whether a statement containing {@code text} runs on the shard now. */
    private static boolean running(String text) throws SQLException {
        return countOnShard("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + text
                        + "%' AND INFO NOT LIKE '%PROCESSLIST%'")
                > 0;
    }

    private static long countOnShard(String sql) throws SQLException {
        try (Connection c = Driver.MARIADB.connect(shard.port(), "shop", "app", "app");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void executePrepared(Connection c, long id) {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO orders VALUES (?, 'prepared')")) {
            p.setLong(1, id);
            p.executeUpdate();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static void execute(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new AssertionError(sql, e);
        }
    }

    private static Connection client(Shardgate router) throws SQLException {
        return Driver.MARIADB.connect(router.mysqlPort(), "shop", "app", "app", Map.of("useServerPrepStmts", "true"));
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private static void awaitTrue(String what, Check check) throws Exception {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (!check.ok()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + PATIENCE + ": " + what);
            }
            Thread.sleep(20);
        }
    }
}
