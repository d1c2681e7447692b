package io.shardgate.it.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.ServerStats;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ZooKeeper ensemble (a quorum of {@code size} servers, as in production) inside this process:
 * each member is ZooKeeper's own {@link QuorumPeerMain} on its own thread, with its own data
 * directory and client, quorum and election ports on 127.0.0.1. A member can be stopped and started
 * again on the same ports and data, as an operator's restart or a crashed pod would; the others
 * keep the quorum meanwhile. (Curator's {@code TestingCluster} does the same, but curator-test is
 * not a dependency of the build; the single-node server routers embed is {@code EmbeddedZooKeeper}.)
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperEnsemble.class);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    private final Path dir;
    private final int[] clientPorts;
    private final int[] quorumPorts;
    private final int[] electionPorts;
    private final Member[] members;

    private ZooKeeperEnsemble(Path dir, int size) throws IOException {
        this.dir = dir;
        this.clientPorts = freePorts(size);
        this.quorumPorts = freePorts(size);
        this.electionPorts = freePorts(size);
        this.members = new Member[size];
    }

    /** Starts {@code size} members under {@code dir} and returns once a leader serves clients. */
    public static ZooKeeperEnsemble start(Path dir, int size) throws IOException, InterruptedException {
        ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(dir, size);
        for (int i = 0; i < size; i++) {
            ensemble.start(i);
        }
        ensemble.awaitLeader(TimeUnit.SECONDS.toMillis(120));
        return ensemble;
    }

    /** Every member's client address, as a ZooKeeper client's connect string. */
    public String connectString() {
        List<String> addresses = new ArrayList<>();
        for (int port : clientPorts) {
            addresses.add(HOST + ":" + port);
        }
        return String.join(",", addresses);
    }

    public int size() {
        return members.length;
    }

    /** Starts member {@code index} (0-based; its ZooKeeper id is index + 1) on its ports and data. */
    public synchronized void start(int index) throws IOException {
        if (members[index] != null) {
            throw new IllegalStateException("member " + index + " is running");
        }
        Member member = new Member(index, config(index));
        members[index] = member;
        member.thread.start();
    }

    /** Stops member {@code index}: its clients lose their connection and move to another member. */
    public synchronized void stop(int index) throws InterruptedException {
        Member member = members[index];
        if (member == null) {
            throw new IllegalStateException("member " + index + " is not running");
        }
        members[index] = null;
        member.close();
        member.thread.join(TimeUnit.SECONDS.toMillis(60));
        log.info("ZooKeeper member {} stopped", index);
    }

    /** Whether member {@code index} runs and takes part in the quorum (leading or following). */
    public synchronized boolean serving(int index) {
        Member member = members[index];
        QuorumPeer peer = member == null ? null : member.peer();
        if (peer == null || !peer.isRunning() || peer.getActiveServer() == null) {
            return false;
        }
        QuorumPeer.ServerState state = peer.getPeerState();
        return state == QuorumPeer.ServerState.LEADING || state == QuorumPeer.ServerState.FOLLOWING;
    }

    /** The index of the member leading now, or -1 while there is none (an election). */
    public synchronized int leader() {
        for (int i = 0; i < members.length; i++) {
            QuorumPeer peer = members[i] == null ? null : members[i].peer();
            if (peer != null && peer.getPeerState() == QuorumPeer.ServerState.LEADING && serving(i)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Member {@code index}'s client-port counters (packets received and sent, live client
     * connections) since it started, or null while it does not serve clients.
     */
    public synchronized ServerStats stats(int index) {
        QuorumPeer peer = members[index] == null ? null : members[index].peer();
        ZooKeeperServer server = peer == null ? null : peer.getActiveServer();
        return server == null ? null : server.serverStats();
    }

    /** Waits until some member leads; fails after {@code millis}. */
    public void awaitLeader(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (leader() < 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no ZooKeeper leader within " + millis + " ms");
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < members.length; i++) {
            if (members[i] != null) {
                stop(i);
            }
        }
    }

    private QuorumPeerConfig config(int index) throws IOException {
        Path data = Files.createDirectories(dir.resolve("zk" + (index + 1)));
        Files.writeString(data.resolve("myid"), String.valueOf(index + 1), StandardCharsets.US_ASCII);
        Properties p = new Properties();
        p.setProperty("dataDir", data.toString());
        p.setProperty("clientPort", String.valueOf(clientPorts[index]));
        p.setProperty("clientPortAddress", HOST);
        // ticks of 500 ms: elections and resyncs take seconds, not tens of seconds
        p.setProperty("tickTime", "500");
        p.setProperty("initLimit", "20");
        p.setProperty("syncLimit", "10");
        // the routers ask for sessions of up to a minute (20 ticks would cap them at 10 s)
        p.setProperty("maxSessionTimeout", "120000");
        p.setProperty("admin.enableServer", "false");
        for (int i = 0; i < clientPorts.length; i++) {
            p.setProperty("server." + (i + 1), HOST + ":" + quorumPorts[i] + ":" + electionPorts[i]);
        }
        QuorumPeerConfig config = new QuorumPeerConfig();
        try {
            config.parseProperties(p);
        } catch (QuorumPeerConfig.ConfigException e) {
            throw new IOException("ZooKeeper member " + index + ": " + e.getMessage(), e);
        }
        return config;
    }

    private static int[] freePorts(int count) throws IOException {
        int[] ports = new int[count];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(socket);
                ports[i] = socket.getLocalPort();
            }
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
        return ports;
    }

    /** One member: ZooKeeper's own main, run from a config on its own thread until closed. */
    private static final class Member extends QuorumPeerMain {
        private final Thread thread;

        Member(int index, QuorumPeerConfig config) {
            this.thread = new Thread(
                    () -> {
                        try {
                            runFromConfig(config); // returns when the peer shuts down
                        } catch (Exception e) {
                            log.warn("ZooKeeper member {} ended: {}", index, e.toString());
                        }
                    },
                    "zk-member-" + (index + 1));
            thread.setDaemon(true);
        }

        QuorumPeer peer() {
            return quorumPeer;
        }
    }

    /** For messages. */
    @Override
    public String toString() {
        return "ZooKeeperEnsemble[" + connectString() + "]";
    }

    static {
        // ZooKeeper's AdminServer (Jetty) is not on the class path; never try to start it
        System.setProperty("zookeeper.admin.enableServer", "false");
    }
}
