package io.shardgate.router.execute;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.router.frontend.FakeShardsSession;
import io.shardgate.router.twophase.TransactionLog;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.router.twophase.TwoPhaseMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * Two-phase commit's decision log on a real in-process ZooKeeper ({@link EmbeddedZooKeeper}), with
 * its own epoch (a fresh {@link TransactionLog} per test: xids never repeat), and the one hand-over
 * a test must wait for: the log answers on ZooKeeper's event thread, and XaCommit hops back onto
 * the session's loop from there.
 */
final class TwoPhaseLog implements AutoCloseable {
    static final String ROOT = "/shardgate";
    /** A hang guard only: never reached by a healthy run, however loaded the machine. */
    private static final long PATIENCE_MILLIS = 30_000;

    private final EmbeddedZooKeeper server;
    private final CuratorFramework curator;
    private final TransactionLog log;
    private final TwoPhase twoPhase;

    TwoPhaseLog(Path dataDir) throws Exception {
        server = new EmbeddedZooKeeper(dataDir, 0);
        server.start();
        curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs(20_000)
                .connectionTimeoutMs(3_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 2_000))
                .build();
        curator.start();
        log = new TransactionLog(curator, ROOT);
        log.start(PATIENCE_MILLIS);
        twoPhase = new TwoPhase(7, log, new TwoPhaseMetrics(new SimpleMeterRegistry()));
    }

    TwoPhase twoPhase() {
        return twoPhase;
    }

    /** The decisions logged now (xids' gtrids). */
    List<String> decisions() throws Exception {
        try {
            return curator.getChildren().forPath(ROOT + "/transactions/decisions");
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /**
     * Waits until a commit decision was logged and the log's callback handed its next step to the
     * session's loop; returns the decisions then logged. ZooKeeper answers one client's requests in
     * order and calls their callbacks in that order on one thread: once a read sent after the
     * decision's create sees the decision, the create's callback (which queued the step) has
     * returned, and the step waits in the session's loop ({@link FakeShardsSession#runPendingTasks}).
     */
    List<String> awaitDecision() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS);
        while (true) {
            CountDownLatch answered = new CountDownLatch(1);
            AtomicReference<List<String>> seen = new AtomicReference<>(List.of());
            curator.getZookeeperClient()
                    .getZooKeeper()
                    .getChildren(
                            ROOT + "/transactions/decisions",
                            false,
                            (rc, path, ctx, children) -> {
                                if (rc == KeeperException.Code.OK.intValue()) {
                                    seen.set(List.copyOf(children));
                                }
                                answered.countDown();
                            },
                            null);
            if (!answered.await(PATIENCE_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("ZooKeeper did not answer");
            }
            if (!seen.get().isEmpty()) {
                return seen.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no decision was logged");
            }
            Thread.sleep(5); // polls the log's progress; never decides the outcome
        }
    }

    @Override
    public void close() throws IOException {
        log.close();
        curator.close();
        server.close();
    }
}
