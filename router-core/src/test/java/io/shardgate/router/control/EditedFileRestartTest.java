package io.shardgate.router.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shardgate.admin.zookeeper.EmbeddedZooKeeper;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.config.UserConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A router restarted with an edited YAML file on the same embedded ZooKeeper: without {@code
 * publish_on_start} the stored version keeps running and a WARN names every section the file
 * changed; with it (the {@code run --publish-config} flag) the file becomes the next version, and a
 * restart with the same file publishes nothing more. No backend is needed: the hostgroups point at a
 * closed port.
 */
class EditedFileRestartTest {
    @TempDir
    Path dataDir;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger publisherLog = (Logger) LoggerFactory.getLogger(StartupPublisher.class);
    private int closedPort;

    @BeforeEach
    void captureLog() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        log.start();
        publisherLog.addAppender(log);
    }

    @AfterEach
    void stopCapturing() {
        publisherLog.detachAppender(log);
        log.stop();
    }

    private RouterConfig file(int placeHostgroup, String user, String extra) {
        return RouterConfig.parse(EmbeddedControlPlaneTest.yaml(dataDir, closedPort, placeHostgroup, user, extra));
    }

    private List<String> lines(Level level) {
        return log.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    private static int placeHostgroup(Shardgate router) {
        return router.routing()
                .current()
                .schema("shop")
                .listed("place")
                .strategy()
                .hostgroups()
                .get(0);
    }

    private static List<String> users(Shardgate router) {
        return router.configuration().current().users().stream()
                .map(UserConfig::name)
                .toList();
    }

    @Test
    void anEditedFileIsWarnedAboutSectionBySectionAndTheStoredVersionRuns() {
        try (Shardgate router = Shardgate.start(file(10, "first", ""))) {
            assertThat(router.configuration().version()).isEqualTo(1);
        }
        assertThat(lines(Level.WARN)).isEmpty();

        try (Shardgate router = Shardgate.start(file(20, "second", "cache: {enabled: true}"))) {
            assertThat(router.configuration().version()).isEqualTo(1);
            assertThat(placeHostgroup(router)).isEqualTo(10);
            assertThat(users(router)).containsExactly("first");
        }
        assertThat(lines(Level.WARN))
                .singleElement()
                .asString()
                .contains("differ from config version 1 in ZooKeeper /shardgate/default")
                .contains("IGNORED: cache (only in the file); schemas ('shop' changed);"
                        + " users ('second' only in the file, 'first' only in ZooKeeper)")
                .contains("--publish-config");
    }

    @Test
    void publishOnStartMakesTheEditedFileTheNextVersionOnce() {
        try (Shardgate router = Shardgate.start(file(10, "first", ""))) {
            assertThat(router.configuration().version()).isEqualTo(1);
        }
        RouterConfig edited = file(20, "second", "").withPublishOnStart();
        try (Shardgate router = Shardgate.start(edited)) {
            assertThat(router.configuration().version()).isEqualTo(2);
            assertThat(router.routing().current().version()).isEqualTo(2);
            assertThat(placeHostgroup(router)).isEqualTo(20);
            assertThat(users(router)).containsExactly("second");
            assertThat(router.ruleStore().current().orElseThrow().number()).isEqualTo(2);
        }
        assertThat(lines(Level.WARN)).isEmpty();
        assertThat(lines(Level.INFO))
                .anySatisfy(l -> assertThat(l)
                        .contains("published the YAML file's sections as config version 2")
                        .contains("schemas ('shop' changed)"));

        // the same file again: it matches the cluster, nothing is published
        try (Shardgate router = Shardgate.start(edited)) {
            assertThat(router.configuration().version()).isEqualTo(2);
        }
        // and the YAML key does what the flag does
        try (Shardgate router = Shardgate.start(file(10, "second", "zookeeper: {publish_on_start: true}"))) {
            assertThat(router.configuration().version()).isEqualTo(3);
            assertThat(placeHostgroup(router)).isEqualTo(10);
        }
    }

    @Test
    void aFileZooKeeperCannotHoldStopsTheStartWithTheReasonAndTheStoredVersionStays() {
        try (Shardgate router = Shardgate.start(file(10, "first", ""))) {
            assertThat(router.configuration().version()).isEqualTo(1);
        }
        // valid as a file, but larger than a version ZooKeeper may hold: the store's own check refuses it
        String rule = "  - {match_digest: \"" + "x".repeat(1000) + "\", error: e}\n";
        RouterConfig tooLarge =
                file(20, "first", "query_rules:\n" + rule.repeat(1000)).withPublishOnStart();
        assertThatThrownBy(() -> Shardgate.start(tooLarge))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cannot be stored in ZooKeeper /shardgate/default")
                .hasMessageContaining("a version holds at most");
        try (Shardgate router = Shardgate.start(file(10, "first", ""))) {
            assertThat(router.configuration().version()).isEqualTo(1);
        }
    }

    @Test
    void whenZooKeeperComesBackLateTheEditedFileIsPublishedThen() throws Exception {
        EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(dataDir.resolve("zk"), 0);
        zooKeeper.start();
        int port = zooKeeper.port();
        String connect = "zookeeper: {connect: \"127.0.0.1:" + port + "\", startup_timeout_millis: 1000";
        try {
            try (Shardgate router = Shardgate.start(file(10, "first", connect + "}"))) {
                assertThat(router.configuration().version()).isEqualTo(1);
            }
            zooKeeper.close();
            // ZooKeeper is down at start: the router serves its file and catches up once it is back
            try (Shardgate router = Shardgate.start(file(20, "second", connect + ", publish_on_start: true}"))) {
                assertThat(router.configuration().version()).isZero();
                zooKeeper = new EmbeddedZooKeeper(dataDir.resolve("zk"), port);
                zooKeeper.start();
                assertThat(router.ruleStore().awaitVersion(2, Duration.ofSeconds(60)))
                        .as("the file published as version 2 once ZooKeeper answers")
                        .isPresent();
                assertThat(placeHostgroup(router)).isEqualTo(20);
                assertThat(users(router)).containsExactly("second");
            }
        } finally {
            zooKeeper.close();
        }
        assertThat(lines(Level.INFO))
                .anySatisfy(l -> assertThat(l).contains("published the YAML file's sections as config version 2"));
    }
}
