package io.shardgate.admin.zookeeper;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** A real in-process ZooKeeper for a test, with Curator clients that it closes at the end. */
public final class ZooKeeperFixture implements AutoCloseable {
    /** Long enough to never fail a healthy run on a loaded machine; only a hang guard. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);

    private final Path dataDir;
    private final List<CuratorFramework> clients = new ArrayList<>();
    private EmbeddedZooKeeper server;
    private int port;

    public ZooKeeperFixture(Path dataDir) throws IOException {
        this.dataDir = dataDir;
        server = new EmbeddedZooKeeper(dataDir, 0);
        server.start();
        port = server.port();
    }

    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /** A started client, connected, with the retry policy a router would use. */
    public CuratorFramework newClient() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString())
                .sessionTimeoutMs(20_000)
                .connectionTimeoutMs(3_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 2_000))
                .build();
        clients.add(client);
        client.start();
        if (!client.blockUntilConnected((int) PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            fail("no connection to ZooKeeper at " + connectString());
        }
        return client;
    }

    /** Stops the server; clients lose their connection, the data stays on disk. */
    public void stop() {
        server.close();
    }

    /** Starts the server again on the same port and data directory. */
    public void restart() throws IOException {
        server = new EmbeddedZooKeeper(dataDir, port);
        server.start();
    }

    /** Polls {@code condition} until it holds; fails after {@link #PATIENCE}. */
    public static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + PATIENCE.toSeconds() + " s: " + what);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        for (CuratorFramework client : clients) {
            if (client.getState() == CuratorFrameworkState.STARTED) {
                client.close();
            }
        }
        server.close();
    }
}
