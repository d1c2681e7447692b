package io.shardgate.it.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.move.TableShape;
import io.shardgate.move.binlog.BinlogPosition;
import io.shardgate.move.binlog.BinlogSource;
import io.shardgate.move.binlog.BinlogTail;
import io.shardgate.move.binlog.ChangedKeys;
import io.shardgate.move.binlog.ReplicaLogin;
import io.shardgate.move.binlog.RowKey;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The binary log catch-up of a move on a real MariaDB writing a row-format binary log: the keys a
 * {@link BinlogTail} reports per committed transaction, bound with {@link RowKey#bind}, find the
 * rows on the source; positions resume exactly; rotation, DDL and a lost stream are handled.
 */
class BinlogTailIT {
    private static final String SCHEMA = "src";
    /** Far above what any step needs; only a hang reaches it. Never decides pass or fail otherwise. */
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static final BigInteger TWO_TO_63 = BigInteger.ONE.shiftLeft(63);
    private static final BigInteger MAX_UNSIGNED = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final String UTF8_NAME = "Zoë 𝄞 Ж";
    private static final String LATIN1_NAME = "Ça coûte 5€";
    private static final AtomicInteger SERVER_IDS = new AtomicInteger(100);

    private static MariaDbServer server;
    private static TableShape big;
    private static TableShape comp;
    private static TableShape lat;
    private static TableShape bin;

    @BeforeAll
    static void start() throws SQLException {
        server = MariaDbServer.builder()
                .database(SCHEMA)
                .innodbBufferPoolSize("32M")
                .arg("--log-bin=source-bin")
                .arg("--binlog-format=ROW")
                .arg("--server-id=1")
                .start();
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE big (id BIGINT UNSIGNED PRIMARY KEY, v INT)");
            s.execute(
                    "CREATE TABLE comp (a INT, name VARCHAR(40) CHARACTER SET utf8mb4, v INT, PRIMARY KEY (a, name))");
            s.execute("CREATE TABLE lat (name VARCHAR(40) CHARACTER SET latin1 PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE bin (k VARBINARY(16) PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE other (id INT PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE doomed (id INT PRIMARY KEY)");
            big = TableShape.load(c, SCHEMA, "big");
            comp = TableShape.load(c, SCHEMA, "comp");
            lat = TableShape.load(c, SCHEMA, "lat");
            bin = TableShape.load(c, SCHEMA, "bin");
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void checkAcceptsARowFormatLog() throws SQLException {
        try (Connection c = connect()) {
            BinlogSource.check(c);
            assertThat(BinlogSource.current(c).file()).startsWith("source-bin.");
        }
    }

    @Test
    void reportsTheKeysOfEachCommittedTransactionAndTheyFindTheRowsOnTheSource() throws Exception {
        Tail tail = Tail.from(current(), List.of(big, comp, lat, bin));
        try (tail;
                Connection c = connect();
                Statement s = c.createStatement()) {
            BigInteger above = TWO_TO_63.add(BigInteger.valueOf(5));
            s.execute("INSERT INTO big VALUES (" + above + ", 1), (" + MAX_UNSIGNED + ", 2)");

            c.setAutoCommit(false);
            insert(c, "INSERT INTO comp VALUES (1, ?, 10)", UTF8_NAME);
            insert(c, "INSERT INTO lat VALUES (?, 20)", LATIN1_NAME);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO bin VALUES (?, 30)")) {
                p.setBytes(1, new byte[] {0, (byte) 0xFF, 1, 0});
                p.executeUpdate();
            }
            s.execute("UPDATE big SET v = 3 WHERE id = " + MAX_UNSIGNED);
            c.commit();

            s.execute("UPDATE comp SET a = 2 WHERE a = 1"); // a primary key change
            c.commit();
            insert(c, "DELETE FROM lat WHERE name = ?", LATIN1_NAME);
            c.commit();
            s.execute("INSERT INTO big VALUES (7, 7)");
            c.rollback(); // never logged
            s.execute("INSERT INTO other VALUES (1, 1)"); // no watched table
            c.commit();
            c.setAutoCommit(true);
            BinlogPosition end = BinlogSource.current(c);

            List<ChangedKeys> seen = tail.take(5);
            assertThat(seen.get(0).keys()).isEqualTo(Map.of(big, List.of(RowKey.of(above), RowKey.of(MAX_UNSIGNED))));
            assertThat(seen.get(1).keys())
                    .isEqualTo(Map.of(
                            comp, List.of(RowKey.of(1L, UTF8_NAME)),
                            lat, List.of(RowKey.of(LATIN1_NAME)),
                            bin, List.of(RowKey.of((Object) new byte[] {0, (byte) 0xFF, 1, 0})),
                            big, List.of(RowKey.of(MAX_UNSIGNED))));
            assertThat(seen.get(2).keys())
                    .isEqualTo(Map.of(comp, List.of(RowKey.of(1L, UTF8_NAME), RowKey.of(2L, UTF8_NAME))));
            assertThat(seen.get(3).keys()).isEqualTo(Map.of(lat, List.of(RowKey.of(LATIN1_NAME))));
            assertThat(seen.get(4).isEmpty())
                    .as("the unwatched table's transaction moves the position only")
                    .isTrue();
            assertThat(seen.get(4).position()).isEqualTo(end);
            for (int i = 1; i < seen.size(); i++) {
                assertThat(seen.get(i).position()).isGreaterThan(seen.get(i - 1).position());
            }
            assertThat(tail.tail.awaitPosition(end, DEADLINE)).isTrue();
            assertThat(tail.received)
                    .as("the rolled-back transaction is not reported")
                    .isEmpty();
            assertThat(tail.tail.position()).isEqualTo(end);
            assertThat(tail.tail.transactions()).isEqualTo(5);
            assertThat(tail.tail.rows()).isEqualTo(2 + 4 + 1 + 1);
            assertThat(tail.tail.lastEventTime()).isPresent();

            // the contract: each reported key, bound as it is, finds that exact row on the source
            assertThat(values(c, big, RowKey.of(above))).containsExactly(1);
            assertThat(values(c, big, RowKey.of(MAX_UNSIGNED))).containsExactly(3);
            assertThat(values(c, comp, RowKey.of(1L, UTF8_NAME)))
                    .as("moved away by the key change")
                    .isEmpty();
            assertThat(values(c, comp, RowKey.of(2L, UTF8_NAME))).containsExactly(10);
            assertThat(values(c, bin, seen.get(1).keys(bin).get(0))).containsExactly(30);
            assertThat(values(c, lat, RowKey.of(LATIN1_NAME))).as("deleted").isEmpty();
            // and a key not reported exactly (the latin1 name without its last character) finds nothing
            s.execute("INSERT INTO lat VALUES ('" + LATIN1_NAME + "', 21)");
            assertThat(values(c, lat, tail.take(1).get(0).keys(lat).get(0))).containsExactly(21);
            assertThat(values(c, lat, RowKey.of(LATIN1_NAME.substring(0, LATIN1_NAME.length() - 1))))
                    .isEmpty();
        }
    }

    @Test
    void followsRotationAndResumesFromAStoredPositionWithExactlyTheLaterTransactions() throws Exception {
        BinlogPosition afterFirst;
        BinlogPosition end;
        try (Tail tail = Tail.from(current(), List.of(big));
                Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO big VALUES (100, 0)");
            afterFirst = tail.take(1).get(0).position();
            s.execute("FLUSH BINARY LOGS");
            BinlogPosition rotated = BinlogSource.current(c);
            assertThat(rotated.sequence()).isEqualTo(afterFirst.sequence() + 1);
            assertThat(tail.tail.awaitPosition(rotated, DEADLINE))
                    .as("an idle tail reaches the new file's start")
                    .isTrue();
            s.execute("INSERT INTO big VALUES (101, 0)");
            s.execute("DELETE FROM big WHERE id = 100");
            end = BinlogSource.current(c);
            List<ChangedKeys> seen = tail.take(2);
            assertThat(seen.get(0).position().file()).isEqualTo(rotated.file());
            assertThat(seen)
                    .extracting(k -> k.keys(big))
                    .containsExactly(List.of(RowKey.of(101L)), List.of(RowKey.of(100L)));
            assertThat(tail.tail.awaitPosition(end, DEADLINE)).isTrue();
        }
        try (Tail resumed = Tail.from(afterFirst, List.of(big))) {
            assertThat(resumed.tail.awaitPosition(end, DEADLINE)).isTrue();
            List<ChangedKeys> seen = resumed.drain();
            assertThat(seen)
                    .extracting(k -> k.keys(big))
                    .containsExactly(List.of(RowKey.of(101L)), List.of(RowKey.of(100L)));
            assertThat(seen.get(seen.size() - 1).position()).isEqualTo(end);
        }
    }

    @Test
    void aWaitForAPositionNotYetWrittenReturnsFalseAndThenTrueOnceItIs() throws Exception {
        try (Tail tail = Tail.from(current(), List.of(big));
                Connection c = connect();
                Statement s = c.createStatement()) {
            BinlogPosition now = BinlogSource.current(c);
            BinlogPosition ahead = new BinlogPosition(now.file(), now.position() + 1);
            assertThat(tail.tail.awaitPosition(ahead, Duration.ofMillis(200))).isFalse();
            s.execute("INSERT INTO big VALUES (200, 0)");
            assertThat(tail.tail.awaitPosition(ahead, DEADLINE)).isTrue();
            assertThat(tail.received).as("handed out before the wait returned").hasSize(1);
        }
    }

    @Test
    void ddlOnAWatchedTableFailsTheTailAndDdlOnAnotherDoesNot() throws Exception {
        TableShape doomed;
        try (Connection c = connect()) {
            doomed = TableShape.load(c, SCHEMA, "doomed");
        }
        try (Tail tail = Tail.from(current(), List.of(doomed));
                Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE unrelated (id INT PRIMARY KEY)");
            s.execute("ALTER TABLE unrelated ADD COLUMN doomed_not INT");
            BinlogPosition afterOtherDdl = BinlogSource.current(c);
            assertThat(tail.tail.awaitPosition(afterOtherDdl, DEADLINE)).isTrue();
            assertThat(tail.take(2)).allMatch(ChangedKeys::isEmpty);

            s.execute("ALTER TABLE doomed ADD COLUMN w INT");
            BinlogPosition afterDdl = BinlogSource.current(c);
            assertThatThrownBy(() -> tail.tail.awaitPosition(afterDdl, DEADLINE))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("`src`.`doomed`")
                    .hasMessageContaining("ALTER TABLE doomed ADD COLUMN w INT");
            assertThat(tail.tail.failure()).isPresent();
            assertThat(tail.tail.position()).isEqualTo(afterOtherDdl);
        }
    }

    @Test
    void anXaTransactionsKeysComeAtItsCommitAndNoResumePointPassesItWhilePrepared() throws Exception {
        BinlogPosition duringPrepared;
        BinlogPosition end;
        try (Tail tail = Tail.from(current(), List.of(big));
                Connection c = connect();
                Statement s = c.createStatement()) {
            xa(s, "other-1", "INSERT INTO other VALUES (2, 2)", "COMMIT");
            BinlogPosition afterOther = BinlogSource.current(c);
            assertThat(tail.tail.awaitPosition(afterOther, DEADLINE)).isTrue();
            assertThat(tail.drain()).isNotEmpty().allMatch(ChangedKeys::isEmpty);

            xa(s, "big-1", "INSERT INTO big VALUES (400, 0)", null);
            try (Connection other = connect();
                    Statement o = other.createStatement()) { // the prepared session runs nothing but XA COMMIT
                o.execute("INSERT INTO big VALUES (401, 0)");
            }
            ChangedKeys later = tail.take(1).get(0);
            assertThat(later.keys(big)).containsExactly(RowKey.of(401L));
            duringPrepared = later.position();
            assertThat(duringPrepared)
                    .as("the resume point stays before the prepared transaction")
                    .isEqualTo(afterOther);

            s.execute("XA COMMIT 'big-1'");
            end = BinlogSource.current(c);
            ChangedKeys committed = tail.take(1).get(0);
            assertThat(committed.keys(big)).containsExactly(RowKey.of(400L));
            assertThat(committed.position()).isEqualTo(end);
            assertThat(values(c, big, committed.keys(big).get(0))).containsExactly(0);

            xa(s, "big-2", "DELETE FROM big WHERE id = 401", "ROLLBACK");
            assertThat(tail.take(1).get(0).isEmpty()).as("rolled back").isTrue();
        }
        try (Tail resumed = Tail.from(duringPrepared, List.of(big))) {
            List<ChangedKeys> seen = resumed.take(2);
            assertThat(seen)
                    .extracting(k -> k.keys(big))
                    .containsExactly(List.of(RowKey.of(401L)), List.of(RowKey.of(400L)));
            assertThat(seen.get(1).position()).isEqualTo(end);
        }
    }

    @Test
    void theEndOfAnXaTransactionPreparedBeforeTheStartFailsTheTail() throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            xa(s, "big-3", "INSERT INTO big VALUES (500, 0)", null);
            try (Tail tail = Tail.from(BinlogSource.current(c), List.of(big))) {
                s.execute("XA COMMIT 'big-3'");
                BinlogPosition end = BinlogSource.current(c);
                assertThatThrownBy(() -> tail.tail.awaitPosition(end, DEADLINE))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("prepared before the tail's start");
            }
        }
    }

    /** XA START .. PREPARE of {@code xid} around {@code sql}, then {@code end} (COMMIT, ROLLBACK or none). */
    private static void xa(Statement s, String xid, String sql, String end) throws SQLException {
        s.execute("XA START '" + xid + "'");
        s.execute(sql);
        s.execute("XA END '" + xid + "'");
        s.execute("XA PREPARE '" + xid + "'");
        if (end != null) {
            s.execute("XA " + end + " '" + xid + "'");
        }
    }

    @Test
    void aLostStreamFailsTheTailAtItsLastPosition() throws Exception {
        try (Tail tail = Tail.from(current(), List.of(big));
                Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO big VALUES (300, 0)");
            BinlogPosition stored = tail.take(1).get(0).position();
            // every dump thread: those of closed tails may linger until their next event
            List<Long> dumpThreads = new ArrayList<>();
            try (ResultSet rs =
                    s.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'")) {
                while (rs.next()) {
                    dumpThreads.add(rs.getLong(1));
                }
            }
            assertThat(dumpThreads).as("the tail's dump thread").isNotEmpty();
            for (long id : dumpThreads) {
                s.execute("KILL " + id);
            }
            assertThatThrownBy(() -> tail.tail.stopped().get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .hasMessageContaining("binary log stream");
            assertThat(tail.tail.position()).isEqualTo(stored);
        }
    }

    @Test
    void tablesWithGeneratedColumnsAreFollowed() throws Exception {
        TableShape generated;
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE gen (v INT, g INT AS (v + 1) VIRTUAL, id INT PRIMARY KEY, st INT AS (v * 2) STORED)");
            generated = TableShape.load(c, SCHEMA, "gen");
        }
        try (Tail tail = Tail.from(current(), List.of(generated));
                Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO gen (v, id) VALUES (5, 50)");
            s.execute("UPDATE gen SET v = 6 WHERE id = 50");
            assertThat(tail.take(2))
                    .extracting(k -> k.keys(generated))
                    .containsExactly(List.of(RowKey.of(50L)), List.of(RowKey.of(50L)));
        }
    }

    @Test
    void unsupportedKeysAreRefusedBeforeConnecting() throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE dated (day DATE PRIMARY KEY)");
            TableShape dated = TableShape.load(c, SCHEMA, "dated");
            assertThatThrownBy(() -> BinlogTail.start(login(), current(), List.of(dated), k -> {}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("`src`.`dated`")
                    .hasMessageContaining("`day` is date");
        }
    }

    @Test
    void checkRefusesAServerThatLogsStatements() throws SQLException {
        try (MariaDbServer statements = MariaDbServer.builder()
                        .innodbBufferPoolSize("16M")
                        .arg("--log-bin=statement-bin")
                        .arg("--binlog-format=STATEMENT")
                        .arg("--server-id=1")
                        .start();
                Connection c = Driver.MARIADB.connect(statements.port(), null, "root", statements.rootPassword())) {
            assertThatThrownBy(() -> BinlogSource.check(c))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("binlog_format is STATEMENT, a move needs ROW");
        }
    }

    /** A tail whose consumer queues what it gets. */
    private static final class Tail implements AutoCloseable {
        final BlockingQueue<ChangedKeys> received = new LinkedBlockingQueue<>();
        BinlogTail tail;

        static Tail from(BinlogPosition from, List<TableShape> watched) throws Exception {
            Tail t = new Tail();
            t.tail = BinlogTail.start(login(), from, watched, t.received::add);
            return t;
        }

        /** The next {@code n} transactions, waiting for them. */
        List<ChangedKeys> take(int n) throws InterruptedException {
            List<ChangedKeys> taken = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ChangedKeys next = received.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                assertThat(next)
                        .as("transaction %d of %d (tail stopped: %s)", i + 1, n, tail.failure())
                        .isNotNull();
                taken.add(next);
            }
            return taken;
        }

        List<ChangedKeys> drain() {
            List<ChangedKeys> drained = new ArrayList<>();
            received.drainTo(drained);
            return drained;
        }

        @Override
        public void close() {
            tail.close();
        }
    }

    private static ReplicaLogin login() {
        return new ReplicaLogin(
                MariaDbServer.HOST, server.port(), "root", server.rootPassword(), SERVER_IDS.incrementAndGet());
    }

    private static Connection connect() throws SQLException {
        return Driver.MARIADB.connect(server.port(), SCHEMA, "root", server.rootPassword());
    }

    private static BinlogPosition current() throws SQLException {
        try (Connection c = connect()) {
            return BinlogSource.current(c);
        }
    }

    private static void insert(Connection c, String sql, String value) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, value);
            p.executeUpdate();
        }
    }

    /** The {@code v} of the rows {@code WHERE pk = ?} finds, with the key bound as the mover binds it. */
    private static List<Integer> values(Connection c, TableShape table, RowKey key) throws SQLException {
        String where = table.primaryKey().stream()
                .map(i -> TableShape.quote(table.columns().get(i).name()) + " = ?")
                .collect(Collectors.joining(" AND "));
        List<Integer> values = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT v FROM " + table.qualifiedName() + " WHERE " + where)) {
            key.bind(p, 1);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getInt(1));
                }
            }
        }
        return values;
    }
}
