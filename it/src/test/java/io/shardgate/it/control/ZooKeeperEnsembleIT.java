package io.shardgate.it.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.it.server.ZooKeeperEnsemble;
import io.shardgate.router.Shardgate;
import io.shardgate.router.config.RouterConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three routers on a three-member ZooKeeper ensemble (in-process quorum servers) in front of two
 * real MariaDB shards, under client load: each member in turn, the leader first, is stopped; while
 * it is down a rule change is published through one router and reaches every router (its clients
 * then read the other shard); the member is started again and rejoins before the next one goes.
 * No client statement fails, the clients keep running while a member is down, and in the end every
 * router runs the last version and every acknowledged insert is on the shard. Every member is
 * stopped once, so each router's ZooKeeper session loses its server at least once and moves to
 * another member.
 */
class ZooKeeperEnsembleIT {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperEnsembleIT.class);
    /** A hang guard only: never fails a healthy run on a loaded machine. */
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    private static final String ROOT = "/shardgate/ensemble-it";
    private static final String SCHEMA = "shop";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String BACKEND_USER = "shardgate";
    private static final String BACKEND_PASSWORD = "sg-secret";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    @Timeout(900)
    void routersKeepServingAndRuleChangesReachEveryRouterWhileEachMemberIsStoppedAndRestarted() throws Exception {
        List<AutoCloseable> open = new ArrayList<>();
        try {
            MariaDbServer shard10 = ControlPlaneIT.shard("shard10");
            open.add(shard10);
            MariaDbServer shard20 = ControlPlaneIT.shard("shard20");
            open.add(shard20);
            ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(dir.resolve("zookeeper"), 3);
            open.add(ensemble);
            List<Shardgate> routers = new ArrayList<>();
            for (String name : List.of("a", "b", "c")) {
                Shardgate router = Shardgate.start(RouterConfig.parse(yaml(name, ensemble, shard10, shard20)));
                open.add(router);
                routers.add(router);
            }
            List<ClientLoad> loads = new ArrayList<>();
            for (int r = 0; r < routers.size(); r++) {
                ClientLoad load = new ClientLoad("r" + r, routers.get(r).mysqlPort(), 2, SCHEMA, USER, PASSWORD);
                open.add(load);
                loads.add(load);
            }
            eventually("every client reads shard10", () -> allRead("shard10", loads));

            // the leader first (a new election under load), then the others
            List<Integer> order = new ArrayList<>(List.of(ensemble.leader()));
            for (int i = 0; i < ensemble.size(); i++) {
                if (!order.contains(i)) {
                    order.add(i);
                }
            }
            int placeHostgroup = 10;
            long version = 0;
            for (int round = 0; round < order.size(); round++) {
                int member = order.get(round);
                ensemble.stop(member);
                ensemble.awaitLeader(PATIENCE.toMillis());
                long served = totalStatements(loads);
                eventually(
                        "clients keep running with member " + member + " down",
                        () -> noFailures(loads) && totalStatements(loads) > served + 50);

                placeHostgroup = placeHostgroup == 10 ? 20 : 10;
                Shardgate publisher = routers.get(round % routers.size());
                version = publishPlace(publisher, placeHostgroup);
                long published = version;
                for (Shardgate router : routers) {
                    eventually(
                            "router on port " + router.mysqlPort() + " runs version " + published,
                            () -> router.configuration().version() >= published);
                }
                String shard = "shard" + placeHostgroup;
                eventually("every client reads " + shard, () -> allRead(shard, loads));
                log.info("member {} down: version {} reached every router, clients read {}", member, version, shard);

                ensemble.start(member);
                eventually("member " + member + " rejoins the quorum", () -> ensemble.serving(member));
            }

            long acknowledged = 0;
            for (ClientLoad load : loads) {
                load.close();
                acknowledged += load.inserted();
                assertThat(load.failures()).as("client failures").isEmpty();
            }
            for (Shardgate router : routers) {
                assertThat(router.configuration().version()).isEqualTo(version);
                assertThat(router.routing().current().version()).isEqualTo(version);
            }
            assertThat(rows(shard10) + rows(shard20))
                    .as("every acknowledged insert is on a shard")
                    .isEqualTo(acknowledged);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                try {
                    open.get(i).close();
                } catch (Exception e) {
                    log.warn("closing {}: {}", open.get(i), e.toString());
                }
            }
        }
    }

    private String yaml(String name, ZooKeeperEnsemble ensemble, MariaDbServer shard10, MariaDbServer shard20)
            throws Exception {
        return String.join(
                "\n",
                "server: {bind: 127.0.0.1, port: 0, http_port: 0, data_dir: \""
                        + Files.createDirectories(dir.resolve(name)) + "\"}",
                "zookeeper: {connect: \"" + ensemble.connectString() + "\", root: " + ROOT
                        + ", session_timeout_millis: 30000}",
                "users: [{name: " + USER + ", password: " + PASSWORD + "}]",
                "hostgroups:",
                "  - {id: 10, writer: \"" + shard10.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "  - {id: 20, writer: \"" + shard20.address() + "\", user: " + BACKEND_USER + ", password: "
                        + BACKEND_PASSWORD + "}",
                "schemas:",
                "  - {name: " + SCHEMA + ", default_hostgroup: 10, tables: ["
                        + "{name: place, strategy: table, hostgroup: 10},"
                        + " {name: events, strategy: table, hostgroup: 10}]}",
                "");
    }

    /**
     * Publishes, through {@code router}'s HTTP API, the router's current configuration with table
     * {@code place} on {@code hostgroup}; returns the new version.
     */
    private static long publishPlace(Shardgate router, int hostgroup) throws Exception {
        TreeMap<String, String> documents = new TreeMap<>(
                router.ruleStore().current().orElseThrow().documents().sections());
        documents.put(
                ConfigDocuments.SCHEMAS,
                "[{\"name\":\"shop\",\"default_hostgroup\":10,\"tables\":["
                        + "{\"name\":\"place\",\"strategy\":\"table\",\"hostgroup\":" + hostgroup + "},"
                        + "{\"name\":\"events\",\"strategy\":\"table\",\"hostgroup\":10}]}]");
        ObjectNode body = JSON.createObjectNode();
        body.put("basedOn", router.ruleStore().status().currentVersion());
        body.set("documents", JSON.valueToTree(documents));
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + router.httpPort() + "/api/config"))
                        .PUT(HttpRequest.BodyPublishers.ofString(body.toString()))
                        .header("Content-Type", "application/json")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(response.body());
        return answer.get("version").asLong();
    }

    private static long rows(MariaDbServer shard) throws SQLException {
        try (Connection c = Driver.MARIADB.connect(shard.port(), SCHEMA, BACKEND_USER, BACKEND_PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM events")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long totalStatements(List<ClientLoad> loads) {
        return loads.stream().mapToLong(ClientLoad::statements).sum();
    }

    private static boolean noFailures(List<ClientLoad> loads) {
        for (ClientLoad load : loads) {
            if (!load.failures().isEmpty()) {
                fail("client failed: " + load.failures());
            }
        }
        return true;
    }

    private static boolean allRead(String shard, List<ClientLoad> loads) {
        return noFailures(loads)
                && loads.stream().flatMap(l -> l.lastSeen().stream()).allMatch(shard::equals);
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + PATIENCE.toSeconds() + " s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
