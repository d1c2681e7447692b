package io.shardgate.admin.zookeeper;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedZooKeeperTest {
    @TempDir
    Path dir;

    private static byte[] read(String connect, String path) throws Exception {
        try (CuratorFramework client = connect(connect)) {
            return client.getData().forPath(path);
        }
    }

    private static void write(String connect, String path, String data) throws Exception {
        try (CuratorFramework client = connect(connect)) {
            client.create().creatingParentsIfNeeded().forPath(path, data.getBytes(UTF_8));
        }
    }

    private static CuratorFramework connect(String connect) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connect, new RetryOneTime(100));
        client.start();
        assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Test
    void keepsItsDataAcrossRestarts() throws Exception {
        Path data = dir.resolve("zk");
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(data, 0)) {
            zk.start();
            write(zk.connectString(), "/shardgate/default/first", "before restart");
        }
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(data, 0)) {
            zk.start();
            assertThat(new String(read(zk.connectString(), "/shardgate/default/first"), UTF_8))
                    .isEqualTo("before restart");
            write(zk.connectString(), "/shardgate/default/second", "after restart");
        }
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(data, 0)) {
            zk.start();
            assertThat(new String(read(zk.connectString(), "/shardgate/default/first"), UTF_8))
                    .isEqualTo("before restart");
            assertThat(new String(read(zk.connectString(), "/shardgate/default/second"), UTF_8))
                    .isEqualTo("after restart");
        }
    }

    @Test
    void refusesASecondServerOnTheSameDirectory() throws Exception {
        Path data = dir.resolve("zk");
        try (EmbeddedZooKeeper first = new EmbeddedZooKeeper(data, 0)) {
            first.start();
            EmbeddedZooKeeper second = new EmbeddedZooKeeper(data, 0);
            assertThatThrownBy(second::start).isInstanceOf(IOException.class).hasMessageContaining("in use");
        }
        try (EmbeddedZooKeeper again = new EmbeddedZooKeeper(data, 0)) {
            again.start(); // the lock went with the first server
            assertThat(again.port()).isPositive();
        }
    }

    @Test
    void listensOnLoopbackAtTheConfiguredPort() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper(dir.resolve("zk"), port);
        zk.start();
        try {
            assertThat(zk.port()).isEqualTo(port);
            assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + port);
            write(zk.connectString(), "/x", "y");
        } finally {
            zk.close();
        }
        zk.close(); // a second close is a no-op
        assertThatThrownBy(zk::port).isInstanceOf(IllegalStateException.class);
    }
}
