package io.shardgate.admin.store;

import static io.shardgate.admin.zookeeper.ZooKeeperFixture.PATIENCE;
import static io.shardgate.admin.zookeeper.ZooKeeperFixture.eventually;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardgate.admin.zookeeper.ZooKeeperFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZkRuleStoreTest {
    private static final String ROOT = "/shardgate/test";

    /** Stands in for router-core's validator: hostgroups are required, "INVALID" is refused. */
    static final ConfigValidator VALIDATOR = documents -> {
        List<String> problems = new ArrayList<>();
        if (documents.get(ConfigDocuments.HOSTGROUPS) == null) {
            problems.add("hostgroups: missing");
        }
        documents.sections().forEach((section, text) -> {
            if (text.contains("INVALID")) {
                problems.add(section + ": contains INVALID");
            }
        });
        return problems;
    };

    @TempDir
    Path dir;

    private ZooKeeperFixture zk;
    private final List<AutoCloseable> routers = new ArrayList<>();

    @BeforeEach
    void startZooKeeper() throws Exception {
        zk = new ZooKeeperFixture(dir.resolve("zk"));
    }

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable r : routers) {
            r.close();
        }
        zk.close();
    }

    /** One router's view of the cluster: its own client, store, metrics and received versions. */
    private final class Router implements AutoCloseable {
        final CuratorFramework client;
        final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        final ZkRuleStore store;
        final BlockingQueue<ConfigVersion> accepted = new LinkedBlockingQueue<>();
        final List<ConfigRejection> rejected = new CopyOnWriteArrayList<>();

        Router() throws InterruptedException {
            client = zk.newClient();
            store = new ZkRuleStore(client, ROOT, VALIDATOR, metrics);
            store.addListener(new ConfigListener() {
                @Override
                public void onAccepted(ConfigVersion version) {
                    accepted.add(version);
                }

                @Override
                public void onRejected(ConfigRejection rejection) {
                    rejected.add(rejection);
                }
            });
            store.start();
            routers.add(this);
        }

        ConfigVersion await(long version) throws InterruptedException {
            Optional<ConfigVersion> v = store.awaitVersion(version, PATIENCE);
            assertThat(v).as("version %d reaches the router", version).isPresent();
            return v.get();
        }

        double counter(String name, String... tags) {
            return metrics.get(name).tags(tags).counter().count();
        }

        @Override
        public void close() {
            store.close();
        }
    }

    static ConfigDocuments docs(String tag) {
        return ConfigDocuments.of(Map.of(
                ConfigDocuments.HOSTGROUPS, "[{\"id\": 10, \"writer\": \"db1:3306\", \"tag\": \"" + tag + "\"}]",
                ConfigDocuments.SCHEMAS, "[{\"name\": \"app\", \"tag\": \"" + tag + "\"}]",
                ConfigDocuments.QUERY_RULES, "[]",
                ConfigDocuments.CACHE, "{\"tag\": \"" + tag + "\"}"));
    }

    @Test
    void publishedVersionReachesAnotherRouter() throws Exception {
        Router a = new Router();
        Router b = new Router();
        assertThat(a.store.seedIfEmpty(docs("seed"))).isTrue();
        assertThat(b.await(1).documents()).isEqualTo(docs("seed"));

        long start = System.nanoTime();
        ConfigVersion published = a.store.publish(1, docs("second"));
        ConfigVersion received = nextAccepted(b, 2);
        double firstMillis = (System.nanoTime() - start) / 1e6;
        assertThat(published.number()).isEqualTo(2);
        assertThat(received).isEqualTo(published);
        assertThat(b.store.current()).contains(published);
        assertThat(a.await(2)).isEqualTo(published);
        assertThat(b.metrics.get("shardgate.config.version").gauge().value()).isEqualTo(2.0);
        assertThat(b.counter("shardgate.config.accepted")).isEqualTo(2.0);

        // the delay is measured and printed, never asserted: timings do not decide pass or fail
        List<Double> millis = new ArrayList<>(List.of(firstMillis));
        for (long n = 3; n <= 21; n++) {
            long t0 = System.nanoTime();
            ConfigVersion v = a.store.publish(n - 1, docs("round-" + n));
            assertThat(nextAccepted(b, n)).isEqualTo(v);
            millis.add((System.nanoTime() - t0) / 1e6);
        }
        millis.sort(null);
        System.out.printf(
                "propagation, publish on router A -> accepted on router B, %d versions: min %.1f ms, median %.1f ms,"
                        + " max %.1f ms (first %.1f ms)%n",
                millis.size(),
                millis.get(0),
                millis.get(millis.size() / 2),
                millis.get(millis.size() - 1),
                firstMillis);
    }

    /** The first version numbered {@code atLeast} or more that the router's listener receives. */
    private static ConfigVersion nextAccepted(Router r, long atLeast) throws InterruptedException {
        while (true) {
            ConfigVersion v = r.accepted.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(v).as("version %d reaches the router", atLeast).isNotNull();
            if (v.number() >= atLeast) {
                return v;
            }
        }
    }

    @Test
    void watcherRefusesAVersionNodeThatIsNotANumber() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("seed"));
        b.await(1);
        a.client.setData().forPath(ROOT + "/version", "banana".getBytes(UTF_8));

        eventually("router B refuses the version node", () -> !b.rejected.isEmpty());
        assertThat(b.rejected.get(0).problems())
                .containsExactly(ROOT + "/version holds 'banana', not a version number");
        assertThat(b.store.current().orElseThrow().number()).isEqualTo(1);
        assertThatThrownBy(() -> a.store.publish(docs("x")))
                .isInstanceOf(RuleStoreException.class)
                .hasMessageContaining("repair it by hand");

        a.client.setData().forPath(ROOT + "/version", "1".getBytes(UTF_8)); // repaired by hand
        ConfigVersion next = a.store.publish(1, docs("after-repair"));
        assertThat(b.await(2)).isEqualTo(next);
    }

    @Test
    void watcherOnlyEverSeesCompleteVersionsInIncreasingOrder() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("v1"));
        for (long n = 2; n <= 30; n++) {
            a.store.publish(n - 1, docs("v" + n));
        }
        b.await(30);
        List<ConfigVersion> seen = new ArrayList<>(b.accepted);
        assertThat(seen).isNotEmpty();
        long previous = 0;
        for (ConfigVersion v : seen) {
            assertThat(v.number()).isGreaterThan(previous);
            previous = v.number();
            assertThat(v.documents())
                    .as("every document of version %d", v.number())
                    .isEqualTo(docs("v" + v.number()));
        }
        assertThat(previous).isEqualTo(30);
        assertThat(a.client.getChildren().forPath(ROOT + "/versions"))
                .as("old versions are pruned")
                .hasSize(ZkRuleStore.RETAINED_VERSIONS);
    }

    @Test
    void publisherRefusesInvalidVersionAndWritesNothing() throws Exception {
        Router a = new Router();
        a.store.seedIfEmpty(docs("seed"));
        a.await(1);

        ConfigDocuments invalid = ConfigDocuments.of(Map.of(ConfigDocuments.SCHEMAS, "INVALID"));
        assertThatThrownBy(() -> a.store.publish(1, invalid))
                .isInstanceOfSatisfying(
                        InvalidConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactly("hostgroups: missing", "schemas: contains INVALID"));

        assertThat(new String(a.client.getData().forPath(ROOT + "/version"), UTF_8))
                .isEqualTo("1");
        assertThat(a.client.getChildren().forPath(ROOT + "/versions")).containsExactly("0000000001");
        assertThat(a.store.current().orElseThrow().number()).isEqualTo(1);
        ConfigRejection rejection = a.store.status().lastRejection().orElseThrow();
        assertThat(rejection.source()).isEqualTo(ConfigRejection.PUBLISH);
        assertThat(rejection.version()).isEqualTo(2);
        assertThat(a.counter("shardgate.config.rejected", "source", "publish")).isEqualTo(1.0);
        assertThatThrownBy(() -> a.store.seedIfEmpty(invalid)).isInstanceOf(InvalidConfigException.class);
    }

    @Test
    void watcherRefusesVersionWrittenBehindItsBackAndKeepsServing() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("seed"));
        b.await(1);

        // a foreign tool writes version 2 without validating: one document is refused by the
        // validator, another is not UTF-8
        CuratorFramework raw = zk.newClient();
        raw.transaction()
                .forOperations(
                        raw.transactionOp().create().forPath(ROOT + "/versions/0000000002"),
                        raw.transactionOp()
                                .create()
                                .forPath(ROOT + "/versions/0000000002/hostgroups", "INVALID".getBytes(UTF_8)),
                        raw.transactionOp()
                                .create()
                                .forPath(ROOT + "/versions/0000000002/cache", new byte[] {(byte) 0xC3, 0x28}),
                        raw.transactionOp().setData().forPath(ROOT + "/version", "2".getBytes(UTF_8)));

        eventually("router B refuses version 2", () -> !b.rejected.isEmpty());
        ConfigRejection rejection = b.rejected.get(0);
        assertThat(rejection.version()).isEqualTo(2);
        assertThat(rejection.source()).isEqualTo(ConfigRejection.WATCH);
        assertThat(rejection.problems()).containsExactly("section cache is not valid UTF-8 text");
        assertThat(b.store.status().lastRejection()).contains(rejection);
        assertThat(b.store.current().orElseThrow().number()).isEqualTo(1);
        assertThat(b.counter("shardgate.config.rejected", "source", "watch")).isEqualTo(1.0);

        // readable but invalid: the validator's reason is reported
        raw.transaction()
                .forOperations(
                        raw.transactionOp().create().forPath(ROOT + "/versions/0000000003"),
                        raw.transactionOp()
                                .create()
                                .forPath(ROOT + "/versions/0000000003/hostgroups", "INVALID".getBytes(UTF_8)),
                        raw.transactionOp().setData().forPath(ROOT + "/version", "3".getBytes(UTF_8)));
        eventually("router B refuses version 3", () -> b.rejected.size() == 2);
        assertThat(b.rejected.get(1).problems()).containsExactly("hostgroups: contains INVALID");
        assertThat(b.store.current().orElseThrow().number()).isEqualTo(1);

        // a valid publish on top of the refused one is taken
        ConfigVersion fixed = a.store.publish(3, docs("fixed"));
        assertThat(fixed.number()).isEqualTo(4);
        assertThat(b.await(4)).isEqualTo(fixed);
        assertThat(b.accepted).extracting(ConfigVersion::number).containsExactly(1L, 4L);
        assertThat(b.counter("shardgate.config.rejected", "source", "watch")).isEqualTo(2.0);
    }

    @Test
    void stalePublishIsAConflictAndLeavesNothingBehind() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("seed"));
        b.await(1);

        a.store.publish(1, docs("from-a"));
        assertThatThrownBy(() -> b.store.publish(1, docs("from-b")))
                .isInstanceOfSatisfying(ConfigConflictException.class, e -> {
                    assertThat(e.basedOn()).isEqualTo(1);
                    assertThat(e.current()).isEqualTo(2);
                });
        assertThat(b.counter("shardgate.config.publish.conflicts")).isEqualTo(1.0);
        assertThat(b.await(2).documents()).isEqualTo(docs("from-a"));
        assertThat(a.client.getChildren().forPath(ROOT + "/versions"))
                .containsExactlyInAnyOrder("0000000001", "0000000002");
    }

    @Test
    void concurrentPublishersOneWinsTheOtherGetsAConflict() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("seed"));
        b.await(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (long base = 1; base <= 10; base++) {
                long basedOn = base;
                CyclicBarrier together = new CyclicBarrier(2);
                List<Future<ConfigVersion>> attempts = new ArrayList<>();
                for (Router r : List.of(a, b)) {
                    String tag = (r == a ? "a" : "b") + basedOn;
                    attempts.add(pool.submit(() -> {
                        together.await();
                        return r.store.publish(basedOn, docs(tag));
                    }));
                }
                int won = 0;
                int conflicted = 0;
                for (Future<ConfigVersion> attempt : attempts) {
                    try {
                        assertThat(attempt.get().number()).isEqualTo(basedOn + 1);
                        won++;
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(ConfigConflictException.class);
                        conflicted++;
                    }
                }
                assertThat(won).as("winners on top of version %d", basedOn).isEqualTo(1);
                assertThat(conflicted).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(new String(a.client.getData().forPath(ROOT + "/version"), UTF_8))
                .isEqualTo("11");
        assertThat(a.client.getChildren().forPath(ROOT + "/versions")).hasSize(11);
        for (long n = 2; n <= 11; n++) {
            assertThat(a.client.getChildren().forPath(ROOT + "/versions/" + ZkLayout.versionNodeName(n)))
                    .as("version %d is complete", n)
                    .hasSize(4);
        }
        assertThat(b.counter("shardgate.config.publish.conflicts") + a.counter("shardgate.config.publish.conflicts"))
                .isEqualTo(10.0);
    }

    @Test
    void seedingRaceHasExactlyOneWinner() throws Exception {
        List<Router> racers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            racers.add(new Router());
        }
        ExecutorService pool = Executors.newFixedThreadPool(racers.size());
        List<Future<Boolean>> seeds = new ArrayList<>();
        try {
            CyclicBarrier together = new CyclicBarrier(racers.size());
            for (int i = 0; i < racers.size(); i++) {
                Router r = racers.get(i);
                ConfigDocuments mine = docs("seeder-" + i);
                seeds.add(pool.submit(() -> {
                    together.await();
                    return r.store.seedIfEmpty(mine);
                }));
            }
            List<Integer> winners = new ArrayList<>();
            for (int i = 0; i < seeds.size(); i++) {
                if (seeds.get(i).get()) {
                    winners.add(i);
                }
            }
            assertThat(winners).hasSize(1);
            ConfigDocuments seeded = docs("seeder-" + winners.get(0));
            for (Router r : racers) {
                assertThat(r.await(1).documents()).isEqualTo(seeded);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(racers.get(0).store.seedIfEmpty(docs("late"))).isFalse();
        assertThat(racers.get(0).client.getChildren().forPath(ROOT + "/versions"))
                .containsExactly("0000000001");
    }

    @Test
    void publishBeforeSeedingIsRefused() throws Exception {
        Router a = new Router();
        assertThatThrownBy(() -> a.store.publish(docs("x")))
                .isInstanceOf(RuleStoreException.class)
                .hasMessageContaining("not seeded");
        assertThat(a.store.current()).isEmpty();
    }

    @Test
    void keepsLastGoodVersionWhileZooKeeperIsDownAndCatchesUpAfter() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("seed"));
        a.store.publish(1, docs("before-outage"));
        ConfigVersion lastGood = b.await(2);

        zk.stop();
        eventually("router B notices the outage", () -> !b.store.status().connected());
        assertThat(b.store.current()).contains(lastGood);
        assertThat(b.metrics.get("shardgate.zookeeper.connected").gauge().value())
                .isEqualTo(0.0);

        zk.restart();
        eventually("router A reconnects", () -> a.store.status().connected());
        long start = System.nanoTime();
        ConfigVersion after = a.store.publish(2, docs("after-outage"));
        assertThat(b.await(3)).isEqualTo(after);
        System.out.printf(
                "after ZooKeeper restart: publish -> accepted on router B in %.1f ms%n",
                (System.nanoTime() - start) / 1e6);
        eventually("router B reports connected", () -> b.store.status().connected());
        // B may never see version 1: seeded and replaced by 2 at once, a watch can read 2 first (it
        // takes the newest); what it accepts only moves forward, 2 before the outage, 3 after it
        assertThat(b.accepted)
                .extracting(ConfigVersion::number)
                .isSorted()
                .doesNotHaveDuplicates()
                .endsWith(2L, 3L);
    }

    @Test
    void liveRoutersAreListedWithTheVersionTheyRun() throws Exception {
        Router a = new Router();
        Router b = new Router();
        a.store.seedIfEmpty(docs("seed"));
        a.await(1);
        b.await(1);
        assertThat(a.store.register(
                        new LiveRouter("router-a", "10.0.0.1", Map.of("mysql", 6033, "http", 6080), 0), PATIENCE))
                .isTrue();
        assertThat(b.store.register(new LiveRouter("router-b", "10.0.0.2", Map.of("mysql", 6033), 0), PATIENCE))
                .isTrue();
        assertThat(a.store.liveRouters())
                .containsExactly(
                        new LiveRouter("router-a", "10.0.0.1", Map.of("mysql", 6033, "http", 6080), 1),
                        new LiveRouter("router-b", "10.0.0.2", Map.of("mysql", 6033), 1));

        assertThatThrownBy(() -> b.store.register(new LiveRouter("router-a", "10.0.0.9", Map.of(), 0), PATIENCE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already registered");

        a.store.publish(1, docs("two"));
        eventually(
                "both registrations show version 2",
                () -> a.store.liveRouters().stream().allMatch(r -> r.configVersion() == 2));

        // ephemeral: owned by router B's session, so it goes when B's process (and session) dies
        assertThat(a.client.checkExists().forPath(ROOT + "/routers/router-b").getEphemeralOwner())
                .isEqualTo(b.client.getZookeeperClient().getZooKeeper().getSessionId());
        b.store.close(); // and a router that shuts down leaves at once
        eventually(
                "router B disappears",
                () -> a.store.liveRouters().stream()
                        .map(LiveRouter::id)
                        .toList()
                        .equals(List.of("router-a")));
    }
}
