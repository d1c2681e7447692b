package io.shardgate.it.scale;

import io.shardgate.it.Driver;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client sessions on one router, each on its own Connector/J connection running one statement in
 * a loop until closed; counts statements and keeps the first failures.
 */
final class ClientLoop implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong statements = new AtomicLong();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

    ClientLoop(String name, int port, int clients, String sql) {
        for (int i = 0; i < clients; i++) {
            Thread t = new Thread(() -> run(port, sql), name + "-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void run(int port, String sql) {
        try (Connection c = Driver.MYSQL.connect(
                        port,
                        FleetConfig.SCHEMA,
                        FleetConfig.USER,
                        FleetConfig.PASSWORD,
                        Map.of("socketTimeout", "60000"));
                Statement s = c.createStatement()) {
            while (running.get()) {
                try (ResultSet rs = s.executeQuery(sql)) {
                    while (rs.next()) {
                        // read the row: the statement is complete only with its result
                    }
                }
                statements.incrementAndGet();
            }
        } catch (Exception e) {
            if (running.get() && failures.size() < 5) {
                failures.add(Thread.currentThread().getName() + ": " + e);
            }
        }
    }

    long statements() {
        return statements.get();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(70_000);
        }
    }
}
