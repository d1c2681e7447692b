package io.shardgate.admin.zookeeper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZKDatabase;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node ZooKeeper server running inside this process, listening on 127.0.0.1, with its
 * snapshots and transaction log under a data directory: the rule store of a router whose {@code
 * zookeeper.connect} is empty. Started again on the same directory it has the same data.
 *
 * <p>Built from ZooKeeper's own {@link ZooKeeperServer} and {@link ServerCnxnFactory} rather than
 * Curator's {@code TestingServer}, which is a test fixture that defaults to a temporary directory
 * and deletes it on close. No admin (Jetty) server is started. A lock file keeps two processes from
 * running a server on one directory.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    private static final int TICK_MILLIS = 2000;
    private static final String LOCK_FILE = "shardgate-zookeeper.lock";

    private final Path dataDir;
    private final int requestedPort;
    private FileChannel lockChannel;
    private FileLock lock;
    private ServerCnxnFactory connections;
    private ZKDatabase database;

    /**
     * Describes a server; {@link #start()} starts it.
     *
     * @param dataDir where snapshots and the transaction log live; created if absent
     * @param port the port on 127.0.0.1, or 0 for any free port
     */
    public EmbeddedZooKeeper(Path dataDir, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 0..65535");
        }
        this.dataDir = dataDir.toAbsolutePath();
        this.requestedPort = port;
    }

    /** Loads the data directory and starts serving; returns when clients can connect. */
    public synchronized void start() throws IOException {
        if (connections != null) {
            throw new IllegalStateException("already started");
        }
        Files.createDirectories(dataDir);
        lockDataDir();
        try {
            ZooKeeperServer server = new ZooKeeperServer(dataDir.toFile(), dataDir.toFile(), TICK_MILLIS);
            ServerCnxnFactory factory = ServerCnxnFactory.createFactory(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), requestedPort), 0);
            factory.startup(server); // loads snapshot and log, then accepts connections
            connections = factory;
            database = server.getZKDatabase();
        } catch (IOException | RuntimeException e) {
            releaseLock();
            throw e;
        } catch (InterruptedException e) {
            releaseLock();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting ZooKeeper", e);
        }
        log.info("embedded ZooKeeper serving {} from {}", connectString(), dataDir);
    }

    /** The port it listens on (the chosen one when started with port 0). */
    public synchronized int port() {
        if (connections == null) {
            throw new IllegalStateException("not started");
        }
        return connections.getLocalPort();
    }

    /** The connect string for clients, {@code 127.0.0.1:port}. */
    public String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Closes client connections, stops the server and closes its log; the data stays on disk. */
    @Override
    public synchronized void close() {
        if (connections == null) {
            return;
        }
        connections.shutdown(); // also shuts the ZooKeeperServer down
        try {
            database.close(); // flushes and closes the transaction log files
        } catch (IOException e) {
            log.warn("closing ZooKeeper database in {}: {}", dataDir, e.toString());
        }
        connections = null;
        database = null;
        releaseLock();
        log.info("embedded ZooKeeper in {} stopped", dataDir);
    }

    private void lockDataDir() throws IOException {
        FileChannel channel =
                FileChannel.open(dataDir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock acquired;
        try {
            acquired = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            acquired = null;
        }
        if (acquired == null) {
            channel.close();
            throw new IOException("ZooKeeper data directory " + dataDir + " is in use by another server");
        }
        lockChannel = channel;
        lock = acquired;
    }

    private void releaseLock() {
        try {
            if (lock != null) {
                lock.release();
            }
            if (lockChannel != null) {
                lockChannel.close();
            }
        } catch (IOException e) {
            log.warn("releasing lock on {}: {}", dataDir, e.toString());
        }
        lock = null;
        lockChannel = null;
    }
}
