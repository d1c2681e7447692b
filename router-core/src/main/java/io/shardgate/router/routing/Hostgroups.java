package io.shardgate.router.routing;

import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.pool.PoolStats;
import io.shardgate.router.session.SqlModeLexing;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every hostgroup of the router by id; thread-safe to read. A new configuration version is
 * applied at run time ({@link #apply}): new hostgroups open pools, and a hostgroup whose settings
 * changed (servers, addresses, credentials, pool) or that is gone is <em>retired</em>: sessions
 * borrow from its successor for their next statement, while what runs on it finishes — statements
 * in flight and waiting for a connection, open transactions, pinned connections, and statements
 * planned under the previous version (a removed hostgroup stays reachable for them while it
 * drains). Its pools close once nothing is lent out or waiting (checked from a second after the
 * swap), or after {@link #DRAIN_MILLIS} at the latest (connections still lent out then close when
 * their session gives them back).
 */
public final class Hostgroups implements AutoCloseable {
    private volatile Set<SqlModeLexing.Hazard> globalSqlModeHazards = Set.of();

    private static final Logger log = LoggerFactory.getLogger(Hostgroups.class);
    /** How long a retired hostgroup waits for its borrowers before its pools close. */
    public static final long DRAIN_MILLIS = 60_000;

    private static final long DRAIN_CHECK_MILLIS = 50;
    /**
     * Before the first drain check: a statement that planned under the previous version just
     * before the swap may still be on its way to this hostgroup's pools (an event loop behind).
     */
    private static final long DRAIN_GRACE_MILLIS = 1_000;

    private final BackendConnector connector;
    private volatile Map<Integer, Hostgroup> byId;
    /** Told of each hostgroup {@link #apply} opens (the health monitor starts checking it). */
    private final List<Consumer<Hostgroup>> addedListeners = new CopyOnWriteArrayList<>();
    /** Told of each hostgroup {@link #apply} retires (the health monitor stops checking it). */
    private final List<Consumer<Hostgroup>> retiredListeners = new CopyOnWriteArrayList<>();
    /** Retired hostgroups whose pools are not closed yet. */
    private final List<Hostgroup> draining = new CopyOnWriteArrayList<>();

    private ScheduledExecutorService drainer; // guarded by this; started with the first drain

    public Hostgroups(List<HostgroupConfig> configs, BackendConnector connector) {
        this.connector = connector;
        TreeMap<Integer, Hostgroup> map = new TreeMap<>();
        for (HostgroupConfig config : configs) {
            map.put(config.id(), new Hostgroup(config, connector));
        }
        this.byId = Collections.unmodifiableMap(map);
    }

    /**
     * Makes {@code configs} the hostgroups new statements use: opens the new ones, replaces the
     * changed ones and drops the missing ones (both drain, see the class note). Returns the ids
     * retired.
     */
    public synchronized SortedSet<Integer> apply(List<HostgroupConfig> configs) {
        TreeMap<Integer, Hostgroup> map = new TreeMap<>();
        List<Hostgroup> opened = new ArrayList<>();
        List<Hostgroup> retired = new ArrayList<>();
        for (HostgroupConfig config : configs) {
            Hostgroup running = byId.get(config.id());
            if (running != null && running.config().equals(config)) {
                map.put(config.id(), running);
                continue;
            }
            Hostgroup next = new Hostgroup(config, connector);
            map.put(config.id(), next);
            opened.add(next);
            if (running != null) {
                retired.add(running);
            }
        }
        for (Hostgroup running : byId.values()) {
            if (!map.containsKey(running.id())) {
                retired.add(running);
            }
        }
        byId = Collections.unmodifiableMap(map);
        SortedSet<Integer> ids = new TreeSet<>();
        for (Hostgroup old : retired) {
            old.retire();
            ids.add(old.id());
            retiredListeners.forEach(listener -> listener.accept(old));
            draining.add(old);
        }
        opened.forEach(added -> addedListeners.forEach(listener -> listener.accept(added)));
        if (!retired.isEmpty()) {
            if (drainer == null) {
                drainer = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "sg-hostgroup-drain");
                    t.setDaemon(true);
                    return t;
                });
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
            for (Hostgroup old : retired) {
                drainer.schedule(() -> drain(old, deadline), DRAIN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
        return ids;
    }

    /** Closes {@code old}'s pools once nothing is lent out or waiting, else checks again shortly. */
    private void drain(Hostgroup old, long deadline) {
        boolean busy = old.busy();
        if (busy && System.nanoTime() < deadline) {
            synchronized (this) {
                if (drainer != null) {
                    drainer.schedule(() -> drain(old, deadline), DRAIN_CHECK_MILLIS, TimeUnit.MILLISECONDS);
                    return;
                }
            }
        }
        if (busy) {
            log.warn(
                    "hostgroup {} (retired) still lends connections after {} ms: its pools close now, those"
                            + " connections when their sessions give them back",
                    old.id(),
                    DRAIN_MILLIS);
        } else {
            log.info("hostgroup {} (retired) drained: its pools close", old.id());
        }
        old.close();
        draining.remove(old);
    }

    /** Calls {@code listener} with every hostgroup a later {@link #apply} opens. */
    public void onAdded(Consumer<Hostgroup> listener) {
        addedListeners.add(listener);
    }

    /** Calls {@code listener} with every hostgroup a later {@link #apply} retires. */
    public void onRetired(Consumer<Hostgroup> listener) {
        retiredListeners.add(listener);
    }

    /** The hostgroup with this id, or null. */
    public Hostgroup get(int id) {
        return byId.get(id);
    }

    public Collection<Hostgroup> all() {
        return byId.values();
    }

    /** The retired hostgroup {@code id} while it drains, or null. */
    public Hostgroup draining(int id) {
        Hostgroup found = null;
        for (Hostgroup h : draining) {
            if (h.id() == id) {
                found = h; // the most recently retired
            }
        }
        return found;
    }

    /** Retired hostgroups whose pools still wait for their borrowers. */
    public List<Hostgroup> draining() {
        return List.copyOf(draining);
    }

    /**
     * The union of every server's global sql_mode hazards, as the monitor last read them: what a
     * session that never set sql_mode may meet (see {@link SqlModeLexing}).
     */
    public Set<SqlModeLexing.Hazard> globalSqlModeHazards() {
        return globalSqlModeHazards;
    }

    /** A server's global sql_mode hazards changed: the union is made again. */
    public void globalSqlModeChanged() {
        EnumSet<SqlModeLexing.Hazard> all = EnumSet.noneOf(SqlModeLexing.Hazard.class);
        servers().forEach(s -> all.addAll(s.globalSqlModeHazards()));
        globalSqlModeHazards = Set.copyOf(all);
    }

    /** Every server of every hostgroup, in hostgroup order, the configured writer first. */
    public List<BackendServer> servers() {
        return byId.values().stream().flatMap(h -> h.servers().stream()).toList();
    }

    /** Pool counters of every server, in hostgroup order. */
    public List<PoolStats> poolStats() {
        return servers().stream().map(s -> s.pool().stats()).toList();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (drainer != null) {
                drainer.shutdownNow();
                drainer = null;
            }
        }
        byId.values().forEach(Hostgroup::close);
        draining.forEach(Hostgroup::close);
        draining.clear();
    }
}
