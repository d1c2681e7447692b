package io.shardgate.router.pool;

import io.netty.channel.EventLoop;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.PoolSettings;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The connections to one backend server of one hostgroup.
 *
 * <p>Design note. A session's client and backend sockets must share an event loop (no hand-off
 * per statement), so the pool is split into one {@link PoolPartition} per event loop, each
 * touched only by its own loop — no locks on the borrow path, as ProxySQL keeps a connection
 * cache per worker thread. Only the connection count is global: {@code max_connections} bounds
 * the server, not each loop. A loop that has waiters while the count is at its bound asks the
 * other loops to close an idle connection, so capacity follows demand between loops.
 *
 * <p>Hand-written rather than a generic object pool: borrowing is asynchronous on the caller's
 * event loop, connections carry server session state to align, and a waiter must get a MySQL
 * error after a bound rather than block a thread.
 */
public final class BackendPool implements AutoCloseable {
    private final HostgroupConfig hostgroup;
    private final BackendAddress address;
    private final BackendConnector connector;
    private final PoolSettings settings;
    private final String label;
    private final ConnectHealth health;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger peakOpen = new AtomicInteger();
    private final Map<EventLoop, PoolPartition> partitions = new ConcurrentHashMap<>();
    final LongAdder created = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder connectFailures = new LongAdder();
    private volatile boolean closed;
    /**
     * Counts the GLOBAL variable changes made through this router on the server. A new connection
     * copies the server's GLOBAL values into its session at login; one opened before a change holds
     * the old values and is retired (closed instead of reused) when it is next idle.
     */
    private final AtomicLong globalsVersion = new AtomicLong();
    /** Why the server takes no new work (SHUNNED, OFFLINE...), or null when it does. */
    private volatile String refusal;

    public BackendPool(
            HostgroupConfig hostgroup,
            BackendAddress address,
            PoolSettings settings,
            BackendConnector connector,
            ConnectHealth health) {
        this.hostgroup = hostgroup;
        this.address = address;
        this.connector = connector;
        this.settings = settings;
        this.health = health;
        this.label = "hostgroup " + hostgroup.id() + " server " + address;
    }

    /** Why new work is refused (the server is not ONLINE), or null. */
    public String refusal() {
        return refusal;
    }

    /**
     * Stops handing out connections: waiters fail at once, idle connections close, and borrowed
     * ones close when they come back (running statements and transactions finish: a drain).
     */
    public void refuseWork(String why) {
        refusal = why;
        for (PoolPartition p : partitions.values()) {
            p.loop().execute(p::refuseWork);
        }
    }

    /** Hands out connections again. */
    public void acceptWork() {
        refusal = null;
    }

    /** Closes every connection, borrowed ones too: their sessions see the backend lost. */
    public void closeEveryConnection() {
        for (PoolPartition p : partitions.values()) {
            p.loop().execute(p::closeEveryConnection);
        }
    }

    /**
     * A statement changed a GLOBAL variable of the server (SET GLOBAL, MySQL's SET PERSIST): every
     * connection opened before is retired at its next release or borrow, idle ones by the evictor.
     * Safe from any thread.
     */
    public void globalsChanged() {
        globalsVersion.incrementAndGet();
    }

    /** The version of the server's GLOBAL values a connection opened now copies. */
    long globalsVersion() {
        return globalsVersion.get();
    }

    ConnectHealth health() {
        return health;
    }

    /** The partition of {@code loop}; use it only from that loop. */
    public PoolPartition partition(EventLoop loop) {
        PoolPartition p = partitions.get(loop);
        return p != null ? p : partitions.computeIfAbsent(loop, l -> new PoolPartition(this, l));
    }

    HostgroupConfig hostgroup() {
        return hostgroup;
    }

    /** The server this pool connects to. */
    public BackendAddress address() {
        return address;
    }

    /** Opens and logs in connections to the server (also those outside the pool, such as a KILL's). */
    public BackendConnector connector() {
        return connector;
    }

    PoolSettings settings() {
        return settings;
    }

    String label() {
        return label;
    }

    boolean closed() {
        return closed;
    }

    /** Takes one of the server's {@code max_connections} slots, if one is free. */
    boolean tryReserve() {
        while (true) {
            int n = open.get();
            if (n >= settings.maxConnections() || closed) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                peakOpen.accumulateAndGet(n + 1, Math::max);
                return true;
            }
        }
    }

    /**
     * A connection closed (or a connect failed): give its slot to a loop that waits — to the
     * loops waiting with less than their fair share when there are any. A loop that closed a
     * connection to make room for a starving one must not take the slot back at once (it runs
     * first, the others only get a task): that turned every rebalancing close into a reconnect
     * on the same loop, thousands per second under load, while the starving loop kept starving.
     */
    void slotFreed(PoolPartition from) {
        open.decrementAndGet();
        boolean othersStarving = anotherStarving(from);
        for (PoolPartition p : partitions.values()) {
            if (p != from && p.hasWaiters() && (!othersStarving || p.starving())) {
                p.loop().execute(p::serveWaiters);
            }
        }
        if (from.hasWaiters() && (!othersStarving || from.starving())) {
            from.serveWaiters();
        }
    }

    /** A loop waits while all slots are taken: ask the others to close an idle connection. */
    void requestRoom(PoolPartition requester) {
        for (PoolPartition p : partitions.values()) {
            if (p != requester) {
                p.loop().execute(p::shedOneIdle);
            }
        }
    }

    /** The connections one loop may keep while another loop waits with fewer. */
    int fairShare() {
        return Math.max(1, settings.maxConnections() / Math.max(1, partitions.size()));
    }

    /** Whether a loop other than {@code asking} waits for a connection with less than its share. */
    boolean anotherStarving(PoolPartition asking) {
        for (PoolPartition p : partitions.values()) {
            if (p != asking && p.starving()) {
                return true;
            }
        }
        return false;
    }

    /** Connections open or being opened, over all loops. */
    public int open() {
        return open.get();
    }

    /** Counters for the admin interface and metrics. */
    public PoolStats stats() {
        int idle = 0;
        int waiting = 0;
        for (PoolPartition p : partitions.values()) {
            idle += p.idleCount();
            waiting += p.waiterCount();
        }
        return new PoolStats(
                label, open.get(), peakOpen.get(), idle, waiting, created.sum(), timeouts.sum(), connectFailures.sum());
    }

    @Override
    public void close() {
        closed = true;
        for (PoolPartition p : partitions.values()) {
            p.loop().execute(p::closeAll);
        }
    }
}
