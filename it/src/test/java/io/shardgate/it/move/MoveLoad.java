package io.shardgate.it.move;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * The read/write load of the move fault ITs: client threads on {@code shop.orders} through a router
 * (autocommit inserts, updates, deletes, reads, and transactions of two updates and an insert), each
 * on keys of its own, so that the order of one client's acknowledgements is the order of its rows'
 * changes. Every acknowledged write is applied to the unsharded reference the same way, so at the
 * end the union of the shards must equal the reference row for row.
 *
 * <p>A statement that fails leaves its rows uncertain (applied or not, the client cannot tell): the
 * client rolls back, then reads those rows through the router until it can, and makes the
 * reference hold what the router shows. A read that returns something else than the client's own
 * last acknowledged write is a wrong answer, counted apart from errors.
 */
final class MoveLoad implements AutoCloseable {
    /**
     * A client error: when (nanoTime), what, whether {@code faulty} said a fault was on, where it
     * came from ({@code router}, {@code reference}, {@code connect} or {@code settle}), the statement
     * that failed and the statements of the transaction it was in (empty outside one).
     */
    record ClientError(
            long atNanos,
            int code,
            String message,
            boolean duringFault,
            String where,
            String statement,
            List<String> transaction) {
        @Override
        public String toString() {
            return "ERROR " + code + " from the " + where + " at " + statement
                    + (transaction.isEmpty() ? "" : " in " + transaction) + ": " + message;
        }
    }

    /** Hears each client error as it happens, on the client's thread (to look at the servers then). */
    @FunctionalInterface
    interface ErrorListener {
        void seen(ClientError error);
    }

    final ConcurrentLinkedQueue<ClientError> errors = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> wrongReads = new ConcurrentLinkedQueue<>();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong uncertain = new AtomicLong();

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final long transactionPauseMillis;
    private final AtomicBoolean fault = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();
    private final ErrorListener listener;

    /**
     * @param routerPort where the clients connect (read each time a client connects)
     * @param reference opens a connection to the unsharded reference's {@code shop}
     * @param ownKeys per client the preloaded keys it may update and delete (client i: {@code
     *     ownKeys.get(i)}); it inserts keys {@code 1e12 * (round + 1) + 1e9 * (i + 1) + n}
     */
    MoveLoad(IntSupplier routerPort, ReferenceConnections reference, List<List<Long>> ownKeys, int round) {
        this(routerPort, reference, ownKeys, round, 0, e -> {});
    }

    /**
     * As above; with {@code transactionPauseMillis} above 0 every client runs only transactions, back
     * to back, pausing that long after each statement in them (as an application between its
     * queries): at any moment nearly every client is inside one that holds the table on the shards
     * it touched. {@code listener} hears each client error as it happens.
     */
    MoveLoad(
            IntSupplier routerPort,
            ReferenceConnections reference,
            List<List<Long>> ownKeys,
            int round,
            long transactionPauseMillis,
            ErrorListener listener) {
        this.transactionPauseMillis = transactionPauseMillis;
        this.listener = listener;
        for (int i = 0; i < ownKeys.size(); i++) {
            int client = i;
            Driver driver = i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL;
            long firstNew = 1_000_000_000_000L * (round + 1) + 1_000_000_000L * (client + 1);
            Thread t = new Thread(
                    () -> run(routerPort, reference, driver, client, ownKeys.get(client), firstNew),
                    "move-load-" + round + "-" + client);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /**
     * The preloaded keys each of {@code clients} clients of load {@code round} updates and deletes,
     * {@code perClient} each, disjoint across clients and rounds.
     */
    static List<List<Long>> ownKeys(int round, int clients, int perClient) {
        List<List<Long>> keys = new ArrayList<>();
        for (int client = 0; client < clients; client++) {
            List<Long> own = new ArrayList<>();
            for (int k = 0; k < perClient; k++) {
                own.add((long) round * clients * perClient + (long) k * clients + client + 1);
            }
            keys.add(own);
        }
        return keys;
    }

    /** Opens connections to the reference database. */
    @FunctionalInterface
    interface ReferenceConnections {
        Connection open() throws SQLException;
    }

    /** Errors from now on are counted as seen while a fault (a shard down) was on. */
    void faultOn(boolean on) {
        fault.set(on);
    }

    /** Waits until the clients acknowledged {@code more} writes beyond now. */
    void awaitMore(long more, long timeoutSeconds) throws InterruptedException {
        long target = acknowledged.get() + more;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (acknowledged.get() < target) {
            if (!broken.isEmpty()) {
                throw new AssertionError("a client stopped: " + broken);
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("the clients did not acknowledge " + more + " writes in " + timeoutSeconds
                        + " s; errors: " + errors);
            }
            Thread.sleep(20);
        }
    }

    private void run(
            IntSupplier port, ReferenceConnections reference, Driver driver, int client, List<Long> keys, long next) {
        Random random = new Random(client * 31L + next);
        Connection c = null;
        try (Connection ref = reference.open()) {
            while (running.get()) {
                if (c == null) {
                    c = connect(driver, port);
                    if (c == null) {
                        return;
                    }
                }
                long key = keys.get(random.nextInt(keys.size()));
                long other = keys.get(random.nextInt(keys.size()));
                int amount = random.nextInt(1_000_000);
                Set<Long> touched = new LinkedHashSet<>();
                Step step = new Step();
                try (Statement s = c.createStatement()) {
                    switch (transactionPauseMillis > 0 ? 4 : random.nextInt(5)) {
                        case 0 -> {
                            long id = next++;
                            touched.add(id);
                            String sql =
                                    "INSERT INTO orders (id, amount, note) VALUES (" + id + ", " + amount + ", 'new')";
                            step.on("router", sql);
                            s.executeUpdate(sql);
                            step.on("reference", sql);
                            apply(ref, sql);
                        }
                        case 1 -> {
                            touched.add(key);
                            String sql = "UPDATE orders SET amount = " + amount + " WHERE id = " + key;
                            step.on("router", sql);
                            s.executeUpdate(sql);
                            step.on("reference", sql);
                            apply(ref, sql);
                        }
                        case 2 -> {
                            touched.add(key);
                            String sql = "DELETE FROM orders WHERE id = " + key;
                            step.on("router", sql);
                            s.executeUpdate(sql);
                            step.on("reference", sql);
                            apply(ref, sql);
                        }
                        case 3 -> {
                            touched.add(key);
                            String sql = "SELECT amount FROM orders WHERE id = " + key;
                            step.on("router", sql);
                            try (ResultSet rs = s.executeQuery(sql)) {
                                Integer seen = rs.next() ? rs.getInt(1) : null;
                                step.on("reference", sql);
                                Integer expected = referenceAmount(ref, key);
                                if (!java.util.Objects.equals(seen, expected)) {
                                    wrongReads.add("client " + client + " read " + seen + " for row " + key
                                            + ", its last write left " + expected);
                                }
                                reads.incrementAndGet();
                            }
                        }
                        default -> {
                            long id = next++;
                            touched.add(key);
                            touched.add(other);
                            touched.add(id);
                            List<String> tx = List.of(
                                    "UPDATE orders SET amount = " + amount + " WHERE id = " + key,
                                    "UPDATE orders SET amount = amount + 1 WHERE id = " + other,
                                    "INSERT INTO orders (id, amount, note) VALUES (" + id + ", " + amount + ", 'tx')");
                            step.transaction = tx;
                            step.on("router", "BEGIN");
                            c.setAutoCommit(false);
                            for (String sql : tx) {
                                step.on("router", sql);
                                s.executeUpdate(sql);
                                if (transactionPauseMillis > 0) {
                                    sleep(transactionPauseMillis);
                                }
                            }
                            step.on("router", "COMMIT");
                            c.commit();
                            c.setAutoCommit(true);
                            ref.setAutoCommit(false);
                            for (String sql : tx) {
                                step.on("reference", sql);
                                apply(ref, sql);
                            }
                            step.on("reference", "COMMIT");
                            ref.commit();
                            ref.setAutoCommit(true);
                        }
                    }
                    acknowledged.incrementAndGet();
                } catch (SQLException e) {
                    seen(new ClientError(
                            System.nanoTime(),
                            e.getErrorCode(),
                            e.getMessage(),
                            fault.get(),
                            step.where,
                            step.statement,
                            step.transaction));
                    uncertain.addAndGet(touched.size());
                    c = settle(c, driver, port, ref, touched);
                }
            }
        } catch (SQLException | RuntimeException e) {
            broken.add("client " + client + ": " + e);
        } finally {
            closeQuietly(c);
        }
    }

    /** Where a client stands: the server it talks to, the statement, the transaction's statements. */
    private static final class Step {
        String where = "router";
        String statement = "";
        List<String> transaction = List.of();

        void on(String server, String sql) {
            where = server;
            statement = sql;
        }
    }

    private void seen(ClientError error) {
        errors.add(error);
        try {
            listener.seen(error);
        } catch (RuntimeException e) {
            broken.add("the error listener failed on " + error + ": " + e);
        }
    }

    private static void apply(Connection ref, String sql) throws SQLException {
        try (Statement s = ref.createStatement()) {
            s.executeUpdate(sql);
        }
    }

    private static Integer referenceAmount(Connection ref, long key) throws SQLException {
        try (Statement s = ref.createStatement();
                ResultSet rs = s.executeQuery("SELECT amount FROM orders WHERE id = " + key)) {
            return rs.next() ? rs.getInt(1) : null;
        }
    }

    /**
     * After a failed statement: rolls back, then (reconnecting as needed) reads {@code touched}
     * through the router until it answers, and makes the reference hold the same rows.
     */
    private Connection settle(Connection c, Driver driver, IntSupplier port, Connection ref, Set<Long> touched)
            throws SQLException {
        for (int attempt = 0; ; attempt++) {
            if (!running.get() && attempt > 600) {
                throw new SQLException("the router did not answer for a minute after the load stopped");
            }
            try {
                if (c == null) {
                    c = driver.connect(
                            port.getAsInt(),
                            "shop",
                            "app",
                            "app",
                            Map.of("socketTimeout", "60000", "connectTimeout", "5000"));
                }
                if (!c.getAutoCommit()) {
                    c.rollback();
                    c.setAutoCommit(true);
                }
                Map<Long, Object[]> rows = new HashMap<>();
                try (PreparedStatement read = c.prepareStatement("SELECT id, amount, note FROM orders WHERE id = ?")) {
                    for (long key : touched) {
                        read.setLong(1, key);
                        try (ResultSet rs = read.executeQuery()) {
                            if (rs.next()) {
                                rows.put(key, new Object[] {rs.getLong(1), rs.getInt(2), rs.getString(3)});
                            }
                        }
                    }
                }
                if (!ref.getAutoCommit()) {
                    ref.rollback();
                    ref.setAutoCommit(true);
                }
                for (long key : touched) {
                    apply(ref, "DELETE FROM orders WHERE id = " + key);
                    Object[] row = rows.get(key);
                    if (row != null) {
                        apply(
                                ref,
                                "INSERT INTO orders (id, amount, note) VALUES (" + row[0] + ", " + row[1] + ", '"
                                        + row[2] + "')");
                    }
                }
                return c;
            } catch (SQLException e) {
                seen(new ClientError(
                        System.nanoTime(),
                        e.getErrorCode(),
                        e.getMessage(),
                        fault.get(),
                        "settle",
                        "reading back " + touched,
                        List.of()));
                closeQuietly(c);
                c = null;
                sleep(100);
            }
        }
    }

    private Connection connect(Driver driver, IntSupplier port) {
        while (running.get()) {
            try {
                return driver.connect(
                        port.getAsInt(),
                        "shop",
                        "app",
                        "app",
                        Map.of("socketTimeout", "60000", "connectTimeout", "5000"));
            } catch (SQLException e) {
                seen(new ClientError(
                        System.nanoTime(), e.getErrorCode(), "connect: " + e, fault.get(), "connect", "", List.of()));
                sleep(100);
            }
        }
        return null;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // gone already
            }
        }
    }

    /** Stops the clients (each finishes its statement) and fails if one of them broke down. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(120_000);
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " did not stop");
            }
        }
        if (!broken.isEmpty()) {
            throw new AssertionError("clients stopped: " + broken);
        }
    }
}
