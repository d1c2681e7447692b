package io.shardgate.router.execute;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.RouterEpochs;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.router.twophase.TwoPhaseMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Two-phase commit's services with this router's xid epoch taken on a real in-process ZooKeeper
 * ({@link EmbeddedZooKeeper}; a fresh {@link RouterEpochs} per test: xids never repeat). The
 * decisions live on the (fake) shards, so nothing here is waited for.
 */
final class TwoPhaseLog implements AutoCloseable {
    static final String ROOT = "/shardgate";
    /** A hang guard only: never reached by a healthy run, however loaded the machine. */
    private static final long PATIENCE_MILLIS = 30_000;

    private final EmbeddedZooKeeper server;
    private final CuratorFramework curator;
    private final RouterEpochs epochs;
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
        epochs = new RouterEpochs(curator, ROOT);
        epochs.start(PATIENCE_MILLIS);
        twoPhase = new TwoPhase(7, epochs, new DecisionTable(), new TwoPhaseMetrics(new SimpleMeterRegistry()));
    }

    TwoPhase twoPhase() {
        return twoPhase;
    }

    /** What is under the transactions node in ZooKeeper (epochs, owners: never a decision). */
    List<String> transactionNodes() throws Exception {
        return curator.getChildren().forPath(ROOT + "/transactions");
    }

    @Override
    public void close() throws IOException {
        epochs.close();
        curator.close();
        server.close();
    }
}
