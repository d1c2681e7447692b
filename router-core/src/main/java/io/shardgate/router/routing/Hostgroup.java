package io.shardgate.router.routing;

import io.shardgate.protocol.type.Collations;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.BackendLogin;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.ReaderConfig;
import io.shardgate.router.pool.PoolStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One hostgroup at run time: its writer and readers, each with its own pool. Writes, locking
 * reads and everything in a transaction run on {@link #writer()}; reads outside transactions on
 * a reader {@link #pickReader picked} by weight among those ONLINE and not lagging.
 *
 * <p>The writer can change at run time (the monitor follows a failover: the writer turned
 * read_only and a reader turned writable); sessions ask for it at every borrow.
 */
public final class Hostgroup implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Hostgroup.class);

    private final HostgroupConfig config;
    private final HostgroupConfig resolved;
    private final List<BackendServer> servers;
    private volatile BackendServer writer;
    /** Set when a configuration version replaced or removed this hostgroup: it only drains now. */
    private volatile boolean retired;

    public Hostgroup(HostgroupConfig published, BackendConnector connector) {
        // the published form stays the identity (a reload compares it); pools log in with the secret
        this.config = published;
        HostgroupConfig config = published.withResolvedPassword();
        this.resolved = config;
        List<BackendServer> all = new ArrayList<>();
        this.writer = new BackendServer(config, config.writerAddress(), 1, config.pool(), ServerRole.WRITER, connector);
        all.add(writer);
        for (ReaderConfig reader : config.readers()) {
            all.add(new BackendServer(
                    config,
                    reader.backendAddress(),
                    reader.weight(),
                    config.pool().withMaxConnections(reader.maxConnections()),
                    ServerRole.READER,
                    connector));
        }
        this.servers = List.copyOf(all);
    }

    public int id() {
        return config.id();
    }

    public HostgroupConfig config() {
        return config;
    }

    /** The backend password this router logs in with (password_file or ${NAME} resolved). */
    public String backendPassword() {
        return resolved.password();
    }

    /**
     * The login of the router's own connections outside the pool (monitor checks, KILL, schema
     * tracking, the two-phase resolver): the backend user, utf8mb4, no schema, the base capabilities.
     */
    public BackendLogin ownLogin() {
        return new BackendLogin(
                config.user(),
                backendPassword(),
                null,
                Collations.UTF8MB4_GENERAL_CI,
                BackendConnector.BASE_CAPABILITIES,
                0,
                config.tlsSettings());
    }

    /**
     * True once a newer configuration replaced or removed this hostgroup: sessions finish what
     * they hold on it (a statement, a transaction, a pinned connection) and borrow from its
     * successor for anything new.
     */
    public boolean retired() {
        return retired;
    }

    void retire() {
        retired = true;
    }

    /** Connections lent out or statements waiting for one, over every server of the hostgroup. */
    public boolean busy() {
        for (BackendServer s : servers) {
            PoolStats stats = s.pool().stats();
            if (stats.open() > stats.idle() || stats.waiting() > 0) {
                return true;
            }
        }
        return false;
    }

    /** The server writes go to right now. */
    public BackendServer writer() {
        return writer;
    }

    /** Every server of the hostgroup, the configured writer first. */
    public List<BackendServer> servers() {
        return servers;
    }

    /** True when the hostgroup has readers at all (reads without them go to the writer). */
    public boolean hasReaders() {
        return servers.size() > 1;
    }

    /** The server with this address, or null. */
    public BackendServer server(String address) {
        for (BackendServer s : servers) {
            if (s.address().toString().equals(address.trim())) {
                return s;
            }
        }
        return null;
    }

    /**
     * A reader for one read, by weight among the ONLINE readers within {@code max_replication_lag},
     * other than {@code avoid}; null when none qualifies (the read then goes to the writer).
     */
    public BackendServer pickReader(BackendServer avoid) {
        long total = 0;
        for (BackendServer s : servers) {
            if (eligible(s, avoid)) {
                total += s.weight();
            }
        }
        if (total == 0) {
            return null;
        }
        long ticket = ThreadLocalRandom.current().nextLong(total);
        for (BackendServer s : servers) {
            if (eligible(s, avoid)) {
                ticket -= s.weight();
                if (ticket < 0) {
                    return s;
                }
            }
        }
        return null;
    }

    private boolean eligible(BackendServer s, BackendServer avoid) {
        return s != avoid
                && s.role() == ServerRole.READER
                && s.weight() > 0
                && s.online()
                && s.lagAcceptable(config.maxReplicationLag());
    }

    /**
     * Follows the topology the monitor saw: when the writer reports read_only (or is not ONLINE)
     * and an ONLINE reader reports writable, the two swap roles.
     */
    public synchronized void followTopology() {
        BackendServer current = writer;
        boolean writerGone = Boolean.TRUE.equals(current.readOnly()) || !current.online();
        if (!writerGone) {
            return;
        }
        for (BackendServer s : servers) {
            if (s != current && s.online() && Boolean.FALSE.equals(s.readOnly())) {
                log.warn(
                        "hostgroup {}: writer {} is {} and reader {} is writable: {} becomes the writer",
                        config.id(),
                        current.address(),
                        current.online() ? "read_only" : current.status(),
                        s.address(),
                        s.address());
                current.role(ServerRole.READER);
                s.role(ServerRole.WRITER);
                writer = s;
                return;
            }
        }
    }

    @Override
    public void close() {
        servers.forEach(BackendServer::close);
    }
}
