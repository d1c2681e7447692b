package io.shardgate.router.routing;

import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.PoolSettings;
import io.shardgate.router.pool.BackendPool;
import io.shardgate.router.pool.ConnectHealth;
import io.shardgate.router.session.SqlModeLexing;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server of one hostgroup at run time: its pool, its role (writer or reader), its status
 * and what the monitor last saw of it. Status and health are written by the monitor and the
 * admin API from any thread and read by sessions on their event loops (volatile fields; a
 * session reading a stale value at worst picks a server that refuses it and retries elsewhere).
 */
public final class BackendServer implements ConnectHealth, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BackendServer.class);
    /** {@link #lagSeconds()} of a replica whose replication threads are not running. */
    public static final long REPLICATION_STOPPED = -1;

    private final int hostgroup;
    private final BackendAddress address;
    private final int weight;
    private final BackendPool pool;
    private final boolean monitored;
    private final int shunAfterFailures;
    private volatile ServerRole role;
    private volatile ServerStatus status = ServerStatus.ONLINE;
    private final AtomicInteger failures = new AtomicInteger();
    private volatile String lastError;
    private volatile Boolean readOnly;
    /** Seconds behind the primary; null: unknown or not a replica. */
    private volatile Long lagSeconds;

    private volatile long lastCheckMillis;

    BackendServer(
            HostgroupConfig config,
            BackendAddress address,
            int weight,
            PoolSettings settings,
            ServerRole role,
            BackendConnector connector) {
        this.hostgroup = config.id();
        this.address = address;
        this.weight = weight;
        this.role = role;
        this.monitored = config.monitor().enabled();
        this.shunAfterFailures = config.monitor().shunAfterFailures();
        this.pool = new BackendPool(config, address, settings, connector, this);
    }

    public int hostgroup() {
        return hostgroup;
    }

    public BackendAddress address() {
        return address;
    }

    public int weight() {
        return weight;
    }

    public BackendPool pool() {
        return pool;
    }

    public ServerRole role() {
        return role;
    }

    void role(ServerRole role) {
        this.role = role;
    }

    public ServerStatus status() {
        return status;
    }

    /** True when new statements may run here. */
    public boolean online() {
        return status == ServerStatus.ONLINE;
    }

    /**
     * Changes the status: SHUNNED and OFFLINE_SOFT stop new work and close idle connections (busy
     * ones close when released), OFFLINE_HARD also closes the busy ones, ONLINE takes work again.
     */
    public synchronized void status(ServerStatus next, String why) {
        ServerStatus before = status;
        if (before == next) {
            return;
        }
        status = next;
        log.info("hostgroup {} server {}: {} -> {} ({})", hostgroup, address, before, next, why);
        switch (next) {
            case ONLINE -> pool.acceptWork();
            case SHUNNED, OFFLINE_SOFT -> pool.refuseWork(refusal(next, why));
            case OFFLINE_HARD -> {
                pool.refuseWork(refusal(next, why));
                pool.closeEveryConnection();
            }
        }
    }

    private String refusal(ServerStatus next, String why) {
        return "server " + address + " of hostgroup " + hostgroup + " is " + next
                + (why == null ? "" : " (" + why + ")");
    }

    /** How the server's global sql_mode reads statement text otherwise than the router (see {@link SqlModeLexing}). */
    private volatile Set<SqlModeLexing.Hazard> globalSqlModeHazards = Set.of();

    /** The monitor read the server's global sql_mode: true when its hazards changed. */
    public boolean globalSqlModeHazards(Set<SqlModeLexing.Hazard> hazards) {
        boolean changed = !hazards.equals(globalSqlModeHazards);
        globalSqlModeHazards = hazards;
        return changed;
    }

    /** The hazards of the global sql_mode the monitor last read (none before the first check). */
    public Set<SqlModeLexing.Hazard> globalSqlModeHazards() {
        return globalSqlModeHazards;
    }

    /** A health check passed: a SHUNNED server comes back. */
    public void checkPassed(boolean readOnly, Long lagSeconds) {
        this.readOnly = readOnly;
        this.lagSeconds = lagSeconds;
        this.lastCheckMillis = System.currentTimeMillis();
        failures.set(0);
        lastError = null;
        if (status == ServerStatus.SHUNNED) {
            synchronized (this) {
                if (status == ServerStatus.SHUNNED) {
                    status(ServerStatus.ONLINE, "health check passed");
                }
            }
        }
    }

    /** A health check failed: after {@code shun_after_failures} in a row an ONLINE server is SHUNNED. */
    public void checkFailed(String error) {
        this.lastCheckMillis = System.currentTimeMillis();
        failed(error);
    }

    @Override
    public void connected() {
        failures.set(0);
    }

    @Override
    public void connectFailed(String error) {
        if (monitored) {
            failed(error); // the monitor brings it back; without one nothing would
        }
    }

    private void failed(String error) {
        lastError = error;
        if (failures.incrementAndGet() >= shunAfterFailures && status == ServerStatus.ONLINE) {
            synchronized (this) {
                if (status == ServerStatus.ONLINE) {
                    status(ServerStatus.SHUNNED, error);
                }
            }
        }
    }

    /** The read_only flag the monitor last saw, or null before the first check. */
    public Boolean readOnly() {
        return readOnly;
    }

    /** Replication lag in seconds the monitor last saw; null: unknown or not a replica. */
    public Long lagSeconds() {
        return lagSeconds;
    }

    /** True when a reader may serve reads under {@code maxLag} seconds (0: lag not checked). */
    boolean lagAcceptable(int maxLag) {
        if (maxLag <= 0) {
            return true;
        }
        Long lag = lagSeconds;
        return lag == null || (lag != REPLICATION_STOPPED && lag <= maxLag);
    }

    /** What the admin interface shows of this server. */
    public ServerInfo info() {
        return new ServerInfo(
                hostgroup,
                address.toString(),
                role,
                status,
                weight,
                readOnly,
                lagSeconds,
                failures.get(),
                lastError,
                lastCheckMillis,
                pool.stats());
    }

    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String toString() {
        return "hostgroup " + hostgroup + " " + role.name().toLowerCase(java.util.Locale.ROOT) + " " + address;
    }
}
