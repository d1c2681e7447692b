package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.server.MariaDbServer;
import io.shardgate.move.KeyRefresh;
import io.shardgate.move.MovingRows;
import io.shardgate.move.Row;
import io.shardgate.move.RowLayout;
import io.shardgate.move.RowReader;
import io.shardgate.move.RowWriter;
import io.shardgate.move.ShardEndpoint;
import io.shardgate.move.ShardSessions;
import io.shardgate.move.SourceMove;
import io.shardgate.move.TableCopy;
import io.shardgate.move.TableDiff;
import io.shardgate.move.TableShape;
import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.KeyHash;
import io.shardgate.sharding.rule.KeyType;
import io.shardgate.sharding.rule.SingleStrategy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The mover's copy, catch-up step and verification between two real MariaDB servers: every column
 * type arrives exactly (checked by the servers' own CHECKSUM TABLE, independent of the mover's
 * reading and writing), only the rows the new rules send to the target move, rows the target owns
 * are never touched, and a copy stopped half-way resumes.
 */
class TableMoveIT {
    /** 16 buckets: 0-7 on hostgroup 30 (the target, which owns them already), 8-15 on 20 (the source). */
    private static final HashStrategy RUNNING = hash(30, 30, 30, 30, 30, 30, 30, 30, 20, 20, 20, 20, 20, 20, 20, 20);
    /** The next version moves buckets 12-15 from 20 to 30. */
    private static final HashStrategy NEXT = hash(30, 30, 30, 30, 30, 30, 30, 30, 20, 20, 20, 20, 30, 30, 30, 30);

    private static final String ORDERS = "CREATE TABLE orders ("
            + " id BIGINT NOT NULL PRIMARY KEY,"
            + " name VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,"
            + " latin VARCHAR(10) CHARACTER SET latin1,"
            + " f FLOAT, d DOUBLE, dec65 DECIMAL(65,30), b BIT(10),"
            + " ts TIMESTAMP(6) NULL, dt DATETIME(6), dz DATE, tm TIME(3), y YEAR,"
            + " e ENUM('a','ü'), s SET('x','y'), j JSON, bl BLOB, vb VARBINARY(8), u BIGINT UNSIGNED,"
            + " pt POINT NULL, twice BIGINT AS (id * 2) VIRTUAL"
            + ") ENGINE=InnoDB";

    private static MariaDbServer source;
    private static MariaDbServer target;

    @BeforeAll
    static void startServers() {
        source = MariaDbServer.builder()
                .database("shop")
                .innodbBufferPoolSize("32M")
                .start();
        target = MariaDbServer.builder()
                .database("shop")
                .innodbBufferPoolSize("32M")
                .start();
    }

    @AfterAll
    static void stopServers() {
        for (MariaDbServer server : new MariaDbServer[] {source, target}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void everyTypeArrivesExactlyAndOnlyMovingRowsMove() throws SQLException {
        try (Connection src = open(source);
                Connection dst = open(target)) {
            recreate(src, "orders", ORDERS);
            recreate(dst, "orders", ORDERS);
            fillOrders(src, 1, 1500);
            // rows of buckets 0-7 the target owns already: the move must leave them alone
            execute(
                    dst,
                    "INSERT INTO orders (id, name) SELECT seq, 'owned' FROM seq_1_to_1500 WHERE seq IN ("
                            + join(ids(1, 1500, false)) + ")");
            long owned = count(dst, "SELECT COUNT(*) FROM orders");

            try (Mover mover = new Mover(src, dst, "orders", MovingRows.of(RUNNING, NEXT, 20, 30))) {
                moveOrders(src, dst, mover, owned);
            }
        }
    }

    private static void moveOrders(Connection src, Connection dst, Mover mover, long owned) throws SQLException {
        TableCopy.Progress done = mover.copy(TableCopy.Progress.START, 97, p -> {});
        List<Long> moving = ids(1, 1500, true);
        assertThat(done.done()).isTrue();
        assertThat(done.rowsRead()).isEqualTo(1500);
        assertThat(done.rowsCopied()).isEqualTo(moving.size());
        assertEqualRows(mover.diff(), moving.size());
        assertThat(checksumOfMoving(src, moving)).isEqualTo(checksumOfMoving(dst, moving));
        assertThat(count(dst, "SELECT COUNT(*) FROM orders WHERE name = 'owned'"))
                .isEqualTo(owned);

        // the catch-up step: changes made on the source after the copy, replayed by key
        List<Long> changed = new ArrayList<>(moving.subList(0, 40));
        execute(
                src,
                "UPDATE orders SET name = CONCAT(name, ' v2'), f = f * 3, b = b ^ 5, ts = NULL WHERE id IN ("
                        + join(moving.subList(0, 20)) + ")");
        execute(src, "DELETE FROM orders WHERE id IN (" + join(moving.subList(20, 40)) + ")");
        fillOrders(src, 1501, 1600);
        LongStream.rangeClosed(1501, 1600).forEach(changed::add);
        changed.addAll(ids(1, 1500, false).subList(0, 10)); // keys of rows that do not move: untouched
        assertThat(mover.diff().equal())
                .as("before the catch-up the target is behind")
                .isFalse();

        int written =
                mover.refresh(changed.stream().map(id -> new Object[] {id}).toList());

        List<Long> movingNow = new ArrayList<>(moving.subList(40, moving.size()));
        movingNow.addAll(0, moving.subList(0, 20));
        movingNow.addAll(ids(1501, 1600, true));
        assertThat(written)
                .as("20 updated (deleted and written), 20 deleted, the new moving rows written")
                .isEqualTo(20 * 2 + 20 + ids(1501, 1600, true).size());
        assertEqualRows(mover.diff(), movingNow.size());
        assertThat(checksumOfMoving(src, movingNow)).isEqualTo(checksumOfMoving(dst, movingNow));
        assertThat(count(dst, "SELECT COUNT(*) FROM orders WHERE name = 'owned'"))
                .isEqualTo(owned);
        int newMoving = ids(1501, 1600, true).size();
        assertThat(mover.refresh(changed.stream().map(id -> new Object[] {id}).toList()))
                .as("replaying the changes again rewrites the same rows (each deleted and written)")
                .isEqualTo(20 * 2 + 2 * newMoving);
        assertThat(mover.diff().equal()).isTrue();
    }

    @Test
    void aWholeTableMovesByteForByteAndAStoppedCopyResumes() throws SQLException {
        try (Connection src = open(source);
                Connection dst = open(target)) {
            recreate(src, "ledger", ORDERS.replace("TABLE orders", "TABLE ledger"));
            recreate(dst, "ledger", ORDERS.replace("TABLE orders", "TABLE ledger"));
            fillOrders(src, "ledger", 1, 1000);
            try (Mover mover = new Mover(
                    src, dst, "ledger", MovingRows.of(new SingleStrategy(20), new SingleStrategy(30), 20, 30))) {
                moveLedger(src, dst, mover);
            }
        }
    }

    private static void moveLedger(Connection src, Connection dst, Mover mover) throws SQLException {

        AtomicReference<TableCopy.Progress> stored = new AtomicReference<>();
        assertThatThrownBy(() -> mover.copy(TableCopy.Progress.START, 64, p -> {
                    stored.set(p);
                    if (p.rowsRead() >= 320) {
                        throw new SQLException("router killed mid-copy");
                    }
                }))
                .hasMessageContaining("killed");
        assertThat(count(dst, "SELECT COUNT(*) FROM ledger")).isEqualTo(320);
        TableCopy.Progress done = mover.copy(stored.get(), 64, p -> {});
        assertThat(done.rowsRead()).isEqualTo(1000);
        assertThat(done.rowsCopied()).isEqualTo(1000);
        assertThat(checksum(src, "ledger")).isEqualTo(checksum(dst, "ledger"));
        assertEqualRows(mover.diff(), 1000);

        execute(dst, "UPDATE ledger SET dz = '2001-01-01' WHERE id = 500");
        assertThat(mover.diff().firstDifference()).isEqualTo("[500]");
    }

    @Test
    void aMovingRowThatCollidesWithARowTheTargetOwnsFailsTheCopy() throws SQLException {
        String items = "CREATE TABLE items (item_id INT PRIMARY KEY, customer_id BIGINT NOT NULL, note VARCHAR(20))";
        long movingCustomer = ids(1, 100, true).get(0);
        long ownedCustomer = ids(1, 100, false).get(0);
        try (Connection src = open(source);
                Connection dst = open(target)) {
            recreate(src, "items", items);
            recreate(dst, "items", items);
            execute(src, "INSERT INTO items VALUES (5, " + movingCustomer + ", 'source')");
            execute(dst, "INSERT INTO items VALUES (5, " + ownedCustomer + ", 'owned')");
            HashStrategy running = new HashStrategy("customer_id", KeyType.INTEGER, buckets(RUNNING));
            HashStrategy next = new HashStrategy("customer_id", KeyType.INTEGER, buckets(NEXT));
            try (Mover mover = new Mover(src, dst, "items", MovingRows.of(running, next, 20, 30))) {
                collide(src, dst, mover, ownedCustomer);
            }
        }
    }

    private static void collide(Connection src, Connection dst, Mover mover, long ownedCustomer) throws SQLException {

        assertThatThrownBy(() -> mover.copy(TableCopy.Progress.START, 10, p -> {}))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1062));
        assertThat(count(dst, "SELECT COUNT(*) FROM items WHERE note = 'owned'"))
                .isEqualTo(1);
        assertThatThrownBy(() -> mover.refresh(List.<Object[]>of(new Object[] {5})))
                .as("the catch-up step fails the same way")
                .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1062));
        assertThat(count(dst, "SELECT COUNT(*) FROM items WHERE note = 'owned'"))
                .isEqualTo(1);
        execute(src, "UPDATE items SET customer_id = " + ownedCustomer + " WHERE item_id = 5");
        assertThat(mover.refresh(List.<Object[]>of(new Object[] {5})))
                .as("once the source row no longer moves, the target's own row is left alone")
                .isZero();
        assertThat(count(dst, "SELECT COUNT(*) FROM items WHERE note = 'owned'"))
                .isEqualTo(1);
    }

    /** One table's copy, catch-up and diff on its own connections. */
    /**
     * The cleanup after a switch deletes the source's moved rows while clients write the rows that
     * stay: it must lock the rows it deletes and no other. A client transaction holds a row that
     * stays, in the middle of the table; the cleanup deletes around it without waiting (a chunk's
     * DELETE ... IN (...) was planned as a scan of the primary key, waited for that row holding the
     * locks of every row before it, and so deadlocked with clients: MoveUnderTransactionsIT).
     */
    @Test
    void theCleanupLocksOnlyTheRowsItDeletes() throws Exception {
        String table = "cleaned";
        String ddl = "CREATE TABLE cleaned (id BIGINT PRIMARY KEY, amount INT NOT NULL) ENGINE=InnoDB";
        // the source holds buckets 8-15, half of them moving, as hostgroup 20 of the move ITs
        List<Long> staying = LongStream.rangeClosed(1, 8000)
                .filter(id -> KeyHash.bucket(id, 16) >= 8 && KeyHash.bucket(id, 16) < 12)
                .boxed()
                .toList();
        List<Long> moving = ids(1, 8000, true);
        try (Connection src = open(source);
                Connection dst = open(target);
                Connection client = open(source)) {
            recreate(src, table, ddl);
            recreate(dst, table, ddl);
            execute(
                    src,
                    "INSERT INTO cleaned SELECT seq, seq FROM seq_1_to_8000 WHERE seq IN (" + join(staying) + ","
                            + join(moving) + ")");
            long held = staying.stream().filter(id -> id > 4000).findFirst().orElseThrow();
            client.setAutoCommit(false);
            execute(client, "UPDATE cleaned SET amount = amount + 1 WHERE id = " + held);
            try (SourceMove move = new SourceMove(
                    endpoint(source), endpoint(target), "shop", Map.of(table, MovingRows.of(RUNNING, NEXT, 20, 30)))) {
                assertThat(move.deleteMoved(table, 1000)).as("rows deleted").isEqualTo(moving.size());
            }
            // the client's transaction goes on with the rows before and after the one it holds
            execute(client, "UPDATE cleaned SET amount = amount + 1 WHERE id = " + staying.get(0));
            execute(client, "INSERT INTO cleaned VALUES (8001, 1)");
            client.commit();
            assertThat(count(src, "SELECT COUNT(*) FROM cleaned")).isEqualTo(staying.size() + 1L);
            assertThat(count(src, "SELECT COUNT(*) FROM cleaned WHERE id IN (" + join(moving) + ")"))
                    .isZero();
            assertThat(count(src, "SELECT SUM(amount - id) FROM cleaned")).isEqualTo(2 + (1 - 8001));
        }
    }

    /**
     * The copy and the catch-up write the moving rows on a target that serves clients on rows of its
     * own: the mover's statements must lock the moving rows and no other. The target is the smaller
     * shard (its own 1,500 rows, buckets 0-7 of ids 1-3,000, interleaved with the moving keys); a
     * client transaction holds one of them in the middle. A copy of every chunk (1,000 source rows,
     * about 500 moving) and a catch-up batch (every moving row changed on the source, 50 deleted, each
     * rewritten on the target) run on a session that waits at most 1 s for a row lock and without the
     * mover's retries, so a statement that waited for the client's row fails the test with 1205. (The
     * chunk's SELECT ... WHERE id IN (...) FOR UPDATE and the batch's DELETE ... WHERE id IN (...)
     * were planned as scans of the whole table, which lock every row they pass.)
     */
    @Test
    void theTargetsWritesLockOnlyTheMovingRows() throws Exception {
        String table = "landed";
        String ddl = "CREATE TABLE landed (id BIGINT PRIMARY KEY, amount INT NOT NULL) ENGINE=InnoDB";
        List<Long> moving = ids(1, 8000, true);
        List<Long> owned = ids(1, 3000, false);
        try (Connection src = open(source);
                Connection dst = open(target);
                Connection client = open(target);
                Connection read = open(source);
                Connection write = open(target)) {
            recreate(src, table, ddl);
            recreate(dst, table, ddl);
            // the source holds buckets 8-15 (12-15 move), the target rows of its own buckets 0-7
            execute(
                    src,
                    "INSERT INTO landed SELECT seq, seq FROM seq_1_to_8000 WHERE seq IN ("
                            + join(LongStream.rangeClosed(1, 8000)
                                    .filter(id -> KeyHash.bucket(id, 16) >= 8)
                                    .boxed()
                                    .toList())
                            + ")");
            execute(dst, "INSERT INTO landed SELECT seq, seq FROM seq_1_to_3000 WHERE seq IN (" + join(owned) + ")");
            execute(dst, "ANALYZE TABLE landed"); // the plans of a table whose statistics are current
            long held = owned.get(owned.size() / 2);
            client.setAutoCommit(false);
            execute(client, "UPDATE landed SET amount = amount + 1 WHERE id = " + held);

            ShardSessions.forReading(read);
            ShardSessions.forWriting(write);
            execute(write, "SET SESSION innodb_lock_wait_timeout = 1");
            RowLayout layout = new RowLayout(TableShape.load(src, "shop", table), MovingRows.of(RUNNING, NEXT, 20, 30));
            RowReader sourceRows = new RowReader(read, layout);
            RowWriter writer = new RowWriter(write, layout);

            // the copy: each chunk of 1,000 source rows, its moving rows written in one call (as TableCopy)
            long copied = 0;
            Object[] after = null;
            while (true) {
                List<Row> chunk = sourceRows.chunk(after, 1000);
                List<Row> rows = chunk.stream().filter(layout::moves).toList();
                if (!rows.isEmpty()) {
                    copied += writer.apply(rows.stream().map(Row::primaryKey).toList(), rows);
                }
                if (chunk.size() < 1000) {
                    break;
                }
                after = chunk.get(chunk.size() - 1).primaryKey();
            }
            assertThat(copied).as("moving rows copied").isEqualTo(moving.size());

            // a catch-up batch (as KeyRefresh): every moving row changed on the source, 50 deleted
            execute(src, "UPDATE landed SET amount = amount + 10 WHERE id IN (" + join(moving) + ")");
            execute(src, "DELETE FROM landed WHERE id IN (" + join(moving.subList(0, 50)) + ")");
            execute(dst, "ANALYZE TABLE landed");
            List<Object[]> keys = moving.stream().map(id -> new Object[] {id}).toList();
            List<Row> now = sourceRows.byKeys(keys, false).stream()
                    .filter(layout::moves)
                    .toList();
            assertThat(writer.apply(keys, now))
                    .as("each changed row deleted and written again, the deleted ones deleted")
                    .isEqualTo(2 * moving.size() - 50);

            // the client's transaction goes on with the rows before and after the one it holds
            execute(client, "UPDATE landed SET amount = amount + 1 WHERE id = " + owned.get(0));
            execute(client, "INSERT INTO landed VALUES (8001, 1)");
            client.commit();
            assertThat(count(dst, "SELECT COUNT(*) FROM landed")).isEqualTo(owned.size() + moving.size() - 50 + 1L);
            assertThat(count(dst, "SELECT SUM(amount - id) FROM landed"))
                    .isEqualTo(2 + (1 - 8001) + 10L * (moving.size() - 50));
            assertThat(count(src, "SELECT COUNT(*) FROM landed WHERE id IN (" + join(moving) + ")"))
                    .isEqualTo(moving.size() - 50L);
        }
    }

    private static ShardEndpoint endpoint(MariaDbServer server) {
        return new ShardEndpoint(server.host(), server.port(), "root", server.rootPassword());
    }

    private static final class Mover implements AutoCloseable {
        private final List<Connection> connections = new ArrayList<>();
        private final RowLayout layout;
        private final RowReader sourceRows;
        private final RowReader targetRows;
        private final RowWriter writer;

        Mover(Connection src, Connection dst, String table, MovingRows moving) throws SQLException {
            TableShape shape = TableShape.load(src, "shop", table);
            assertThat(TableShape.load(dst, "shop", table)).isEqualTo(shape);
            layout = new RowLayout(shape, moving);
            Connection read = open(source);
            Connection write = open(target);
            Connection check = open(target);
            connections.addAll(List.of(read, write, check));
            ShardSessions.forReading(read);
            ShardSessions.forWriting(write);
            ShardSessions.forReading(check);
            sourceRows = new RowReader(read, layout);
            targetRows = new RowReader(check, layout);
            writer = new RowWriter(write, layout);
        }

        TableCopy.Progress copy(TableCopy.Progress from, int chunk, TableCopy.ChunkListener listener)
                throws SQLException {
            return new TableCopy(sourceRows, writer, layout, chunk).run(from, listener);
        }

        int refresh(List<Object[]> keys) throws SQLException {
            return new KeyRefresh(sourceRows, writer, layout).refresh(keys);
        }

        TableDiff.Result diff() throws SQLException {
            return new TableDiff(sourceRows, targetRows, layout, 50).run();
        }

        List<Object[]> recheck(List<Object[]> keys) throws SQLException {
            return new TableDiff(sourceRows, targetRows, layout, 50).recheck(keys);
        }

        @Override
        public void close() throws SQLException {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private static void fillOrders(Connection c, long from, long to) throws SQLException {
        fillOrders(c, "orders", from, to);
    }

    private static void assertEqualRows(TableDiff.Result result, long rows) {
        assertThat(result.equal()).as("equal: %s", result.firstDifference()).isTrue();
        assertThat(result.sourceRows()).isEqualTo(rows);
        assertThat(result.targetRows()).isEqualTo(rows);
        assertThat(result.differingKeys()).isEmpty();
    }

    /** Rows with every type's edge values: NULLs, extremes, non-ASCII text, zero dates, binary bytes. */
    private static void fillOrders(Connection c, String table, long from, long to) throws SQLException {
        execute(c, "SET SESSION sql_mode = '', time_zone = '+03:00'");
        execute(
                c,
                "INSERT INTO " + table + " (id, name, latin, f, d, dec65, b, ts, dt, dz, tm, y, e, s, j, bl, vb, u, pt)"
                        + " SELECT seq,"
                        + " IF(seq % 7 = 0, NULL, CONCAT('naïve ', seq, ' ßé 😀')),"
                        + " IF(seq % 5 = 0, 'Ärger', CONCAT('l', seq)),"
                        + " IF(seq % 11 = 0, 3.4028234e38, seq / 7),"
                        + " IF(seq % 13 = 0, 1.7976931348623157e308, seq / 3e0),"
                        + " IF(seq % 17 = 0, -99999999999999999999999999999999999.999999999999999999999999999999, seq / 9),"
                        + " seq % 1024,"
                        + " IF(seq % 19 = 0, NULL, FROM_UNIXTIME(1700000000 + seq * 3607.123456)),"
                        + " '2024-02-29 23:59:59.999999' - INTERVAL seq HOUR,"
                        + " IF(seq % 23 = 0, '0000-00-00', IF(seq % 29 = 0, '2024-02-00', '1000-01-01' + INTERVAL seq DAY)),"
                        + " IF(seq % 2 = 0, '-838:59:59.999', SEC_TO_TIME(seq * 61)),"
                        + " 1901 + seq % 255,"
                        + " IF(seq % 3 = 0, 'ü', 'a'),"
                        + " IF(seq % 4 = 0, 'x,y', ''),"
                        + " JSON_OBJECT('k', seq, 's', 'ü'),"
                        + " IF(seq % 31 = 0, NULL, UNHEX(REPEAT(HEX(seq), 40))),"
                        + " UNHEX(LPAD(HEX(seq), 8, '00')),"
                        + " IF(seq % 37 = 0, 18446744073709551615, seq),"
                        + " IF(seq % 41 = 0, POINT(seq, -seq), NULL)"
                        + " FROM seq_" + from + "_to_" + to);
    }

    /**
     * The ids of {@code [from, to]} the move carries (buckets 12-15: {@code moving}) or that the target
     * owns already (buckets 0-7).
     */
    private static List<Long> ids(long from, long to, boolean moving) {
        return LongStream.rangeClosed(from, to)
                .filter(id -> moving ? KeyHash.bucket(id, 16) >= 12 : KeyHash.bucket(id, 16) < 8)
                .boxed()
                .toList();
    }

    /** The server's CHECKSUM TABLE over a copy of the rows {@code ids} of orders. */
    private static long checksumOfMoving(Connection c, List<Long> ids) throws SQLException {
        recreate(c, "checked", ORDERS.replace("TABLE orders", "TABLE checked"));
        execute(
                c,
                "INSERT INTO checked (id, name, latin, f, d, dec65, b, ts, dt, dz, tm, y, e, s, j, bl, vb, u, pt)"
                        + " SELECT id, name, latin, f, d, dec65, b, ts, dt, dz, tm, y, e, s, j, bl, vb, u, pt FROM orders"
                        + " WHERE id IN (" + join(ids) + ")");
        return checksum(c, "checked");
    }

    private static long checksum(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("CHECKSUM TABLE " + table)) {
            rs.next();
            return rs.getLong(2);
        }
    }

    private static void recreate(Connection c, String table, String ddl) throws SQLException {
        execute(c, "DROP TABLE IF EXISTS " + table);
        execute(c, ddl);
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String join(List<Long> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static Connection open(MariaDbServer server) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mariadb://" + server.address() + "/shop?user=root&password=" + server.rootPassword());
    }

    private static HashStrategy hash(int... bucketHostgroups) {
        return new HashStrategy("id", KeyType.INTEGER, bucketHostgroups);
    }

    private static int[] buckets(HashStrategy strategy) {
        int[] hostgroups = new int[strategy.buckets()];
        for (int b = 0; b < hostgroups.length; b++) {
            hostgroups[b] = strategy.hostgroupOfBucket(b);
        }
        return hostgroups;
    }
}
