package io.shardgate.router.health;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.BackendLogin;
import io.shardgate.router.config.MonitorSettings;
import io.shardgate.router.routing.BackendServer;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.session.SqlModeLexing;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks every backend server on its own schedule ({@code monitor.interval_millis} of its
 * hostgroup): a new connection that logs in, pings, reads {@code @@read_only} and the replication
 * lag, and quits cleanly ({@link HealthCheck}). A server failing {@code shun_after_failures} checks
 * in a row is SHUNNED, one passing check brings it back; readers over {@code max_replication_lag}
 * stop getting reads; a writer turned read-only and a reader turned writable swap roles.
 *
 * <p>Threading: each server's checks run on one event loop of the router's group, fully
 * asynchronous (connect, login and queries are Netty I/O), so a slow or dead server never blocks
 * a loop; results land in the server's volatile fields.
 */
public final class ServerMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ServerMonitor.class);

    private final BackendConnector connector;
    private final EventLoopGroup loops;
    /** The check schedules of each watched hostgroup (by identity: a replaced one is another object). */
    private final Map<Hostgroup, List<ScheduledFuture<?>>> schedules = new IdentityHashMap<>();

    private volatile boolean closed;

    private final Hostgroups hostgroups;

    private ServerMonitor(Hostgroups hostgroups, BackendConnector connector, EventLoopGroup loops) {
        this.hostgroups = hostgroups;
        this.connector = connector;
        this.loops = loops;
    }

    /**
     * Starts checking every server of hostgroups whose monitor is enabled, and of those a new
     * configuration version adds later; the first checks run now.
     */
    public static ServerMonitor start(Hostgroups hostgroups, BackendConnector connector, EventLoopGroup loops) {
        ServerMonitor monitor = new ServerMonitor(hostgroups, connector, loops);
        hostgroups.onAdded(monitor::watch);
        hostgroups.onRetired(monitor::unwatch);
        for (Hostgroup hostgroup : hostgroups.all()) {
            monitor.watch(hostgroup);
        }
        return monitor;
    }

    private void watch(Hostgroup hostgroup) {
        MonitorSettings settings = hostgroup.config().monitor();
        if (!settings.enabled() || closed) {
            return;
        }
        for (BackendServer server : hostgroup.servers()) {
            EventLoop loop = loops.next();
            synchronized (schedules) {
                schedules
                        .computeIfAbsent(hostgroup, h -> new ArrayList<>())
                        .add(loop.scheduleWithFixedDelay(
                                () -> check(hostgroup, server, loop),
                                0,
                                settings.intervalMillis(),
                                TimeUnit.MILLISECONDS));
            }
        }
    }

    /** Stops checking a hostgroup a newer configuration replaced or removed. */
    private void unwatch(Hostgroup hostgroup) {
        synchronized (schedules) {
            List<ScheduledFuture<?>> stopped = schedules.remove(hostgroup);
            if (stopped != null) {
                stopped.forEach(s -> s.cancel(false));
            }
        }
    }

    /** One check of {@code server}; the next is scheduled after the interval regardless of the outcome. */
    private void check(Hostgroup hostgroup, BackendServer server, EventLoop loop) {
        if (closed) {
            return;
        }
        run(hostgroup, server, loop).addListener(f -> {
            if (closed) {
                return;
            }
            if (f.isSuccess()) {
                CheckResult result = (CheckResult) f.getNow();
                server.checkPassed(result.readOnly(), result.lagSeconds());
                if (result.globalSqlMode() != null
                        && server.globalSqlModeHazards(SqlModeLexing.ofGlobal(result.globalSqlMode()))) {
                    hostgroups.globalSqlModeChanged();
                }
            } else {
                log.debug("check of {} failed: {}", server, f.cause().getMessage());
                server.checkFailed(String.valueOf(f.cause().getMessage()));
            }
            hostgroup.followTopology();
        });
    }

    private Future<CheckResult> run(Hostgroup hostgroup, BackendServer server, EventLoop loop) {
        Promise<CheckResult> result = loop.newPromise();
        BackendLogin login = hostgroup.ownLogin();
        Future<BackendConnection> connect = connector.connect(loop, server.address(), login);
        int timeout = hostgroup.config().monitor().timeoutMillis();
        ScheduledFuture<?> deadline = loop.schedule(
                () -> result.tryFailure(new IllegalStateException("no answer within " + timeout + " ms")),
                timeout,
                TimeUnit.MILLISECONDS);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                result.tryFailure(f.cause());
                return;
            }
            BackendConnection connection = connect.getNow();
            if (result.isDone()) {
                connection.close(); // timed out meanwhile: no need to talk
                return;
            }
            connection.channel().pipeline().addLast("check", new HealthCheck(result));
            result.addListener(r -> {
                if (!r.isSuccess()) {
                    connection.close();
                }
            });
        });
        result.addListener(r -> deadline.cancel(false));
        return result;
    }

    @Override
    public void close() {
        closed = true;
        synchronized (schedules) {
            schedules.values().forEach(list -> list.forEach(s -> s.cancel(false)));
        }
    }
}
