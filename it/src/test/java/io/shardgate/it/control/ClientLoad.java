package io.shardgate.it.control;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Client threads that keep running statements through a router until stopped: each reads {@code
 * SELECT name FROM place} (which shard answers) and inserts one row into {@code events} per round,
 * on its own connection, alternating the MariaDB and MySQL drivers. Every failure is kept.
 */
final class ClientLoad implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final List<AtomicReference<String>> lastSeen = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong inserted = new AtomicLong();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

    ClientLoad(String name, int port, int clients, String schema, String user, String password) {
        for (int i = 0; i < clients; i++) {
            Driver driver = i % 2 == 0 ? Driver.MARIADB : Driver.MYSQL;
            AtomicReference<String> seen = new AtomicReference<>();
            lastSeen.add(seen);
            String client = name + "-" + i;
            Thread t = new Thread(() -> run(client, driver, port, schema, user, password, seen), client);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void run(
            String client,
            Driver driver,
            int port,
            String schema,
            String user,
            String password,
            AtomicReference<String> seen) {
        try (Connection c = driver.connect(port, schema, user, password, Map.of("socketTimeout", "60000"));
                PreparedStatement read = c.prepareStatement("SELECT name FROM place");
                PreparedStatement write = c.prepareStatement("INSERT INTO events (client) VALUES (?)")) {
            while (running.get()) {
                try (ResultSet rs = read.executeQuery()) {
                    rs.next();
                    seen.set(rs.getString(1));
                }
                write.setString(1, client);
                write.executeUpdate();
                inserted.incrementAndGet();
                statements.addAndGet(2);
            }
        } catch (SQLException | RuntimeException e) {
            failures.add(client + ": " + e);
        }
    }

    /** What every client read last, in client order (null: nothing yet). */
    List<String> lastSeen() {
        return lastSeen.stream().map(AtomicReference::get).toList();
    }

    long statements() {
        return statements.get();
    }

    /** Rows whose INSERT the router acknowledged. */
    long inserted() {
        return inserted.get();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(120_000);
        }
    }
}
