package io.shardgate.router.columns;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.DirectStatement;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.sharding.columns.ColumnAgreement;
import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.columns.TableColumns;
import io.shardgate.sharding.columns.TrackedColumn;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schema tracking: learns the column lists (names, in table order) of the tables listed under
 * {@code schemas} from {@code information_schema.COLUMNS} on the writer of every hostgroup, checks
 * that the shards of each table agree ({@link ColumnAgreement}) and publishes the result to {@link
 * RoutingRules#publishColumns}. It refreshes at start, every {@code
 * server.schema_tracking_interval_millis}, and when asked ({@link #refresh}: after DDL that ran
 * on several hostgroups, before the client gets its OK).
 *
 * <p>Threading: each refresh opens one short-lived connection per hostgroup on an event loop of
 * the router's group (Netty I/O, never blocking a loop); the answers meet in a concurrent map and
 * the last one publishes. Refreshes are numbered when they start and a catalog replaces the
 * published one only if it started later, so a refresh begun after a DDL is never overwritten by
 * one begun before it.
 */
public final class SchemaTracker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SchemaTracker.class);

    private final RoutingRules routing;
    private final Hostgroups hostgroups;
    private final BackendConnector connector;
    private final EventLoopGroup loops;
    private final AtomicLong started = new AtomicLong();
    /** The number of the latest-started refresh that has finished (guarded by this). */
    private long newestFinished;

    private volatile ScheduledFuture<?> schedule;
    private volatile boolean closed;

    private SchemaTracker(
            RoutingRules routing, Hostgroups hostgroups, BackendConnector connector, EventLoopGroup loops) {
        this.routing = routing;
        this.hostgroups = hostgroups;
        this.connector = connector;
        this.loops = loops;
    }

    /**
     * Starts tracking: a first refresh now (waited for, up to the connect timeout, so the first
     * dump loaded through a fresh router finds its tables), then one every {@code intervalMillis}
     * (0: none on a schedule). Registers the gauge of tables whose shards disagree.
     */
    public static SchemaTracker start(
            RoutingRules routing,
            Hostgroups hostgroups,
            BackendConnector connector,
            EventLoopGroup loops,
            long intervalMillis,
            MeterRegistry registry) {
        SchemaTracker tracker = new SchemaTracker(routing, hostgroups, connector, loops);
        Gauge.builder(
                        "shardgate.schema.tracking.disagreeing.tables",
                        routing,
                        r -> disagreeing(r.columns()).size())
                .description("Listed tables whose shards report different column lists (schema tracking)")
                .register(registry);
        tracker.refresh().awaitUninterruptibly(30, TimeUnit.SECONDS);
        if (intervalMillis > 0) {
            tracker.schedule = loops.next()
                    .scheduleWithFixedDelay(tracker::refresh, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
        }
        return tracker;
    }

    /** Re-reads every hostgroup's column lists now; the future ends once the result is published. */
    public Future<ColumnCatalog> refresh() {
        EventLoop loop = loops.next();
        Promise<ColumnCatalog> done = loop.newPromise();
        long round = started.incrementAndGet();
        RuleSnapshot rules = routing.current();
        if (closed || rules.schemas().isEmpty()) {
            return done.setSuccess(routing.columns());
        }
        String sql = ColumnsSql.select(rules.schemas().keySet());
        Map<Integer, Map<String, List<TrackedColumn>>> reports = new ConcurrentHashMap<>();
        List<Integer> ids = new ArrayList<>(rules.hostgroups());
        AtomicInteger waiting = new AtomicInteger(ids.size());
        for (int id : ids) {
            Hostgroup hostgroup = hostgroups.get(id);
            Future<List<List<String>>> answer = hostgroup == null
                    ? loop.newFailedFuture(new IllegalStateException("hostgroup " + id + " is not configured"))
                    : query(hostgroup, sql, loop);
            answer.addListener(f -> {
                if (f.isSuccess()) {
                    reports.put(id, ColumnsSql.columnsByTable(answer.getNow()));
                } else {
                    log.warn(
                            "schema tracking: hostgroup {} did not report its columns: {}",
                            id,
                            f.cause().getMessage());
                }
                if (waiting.decrementAndGet() == 0) {
                    done.trySuccess(publish(ColumnAgreement.catalog(round, rules, reports)));
                }
            });
        }
        return done;
    }

    private synchronized ColumnCatalog publish(ColumnCatalog next) {
        ColumnCatalog before = routing.columns();
        if (next.version() <= newestFinished) {
            return before; // a refresh that started later has finished already
        }
        newestFinished = next.version();
        if (next.tables().equals(before.tables())) {
            return before; // nothing changed: cached plans that read the column lists stay valid
        }
        Map<String, String> was = disagreeing(before);
        disagreeing(next).forEach((table, disagreement) -> {
            if (!disagreement.equals(was.get(table))) {
                log.warn("schema tracking: {}; statements that depend on its column list are refused", disagreement);
            }
        });
        routing.publishColumns(next);
        return next;
    }

    /** Tables whose shards disagree, with the disagreement, by name. */
    public static Map<String, String> disagreeing(ColumnCatalog catalog) {
        Map<String, String> out = new TreeMap<>();
        catalog.tables().forEach((table, columns) -> {
            if (columns instanceof TableColumns.Disagreeing d) {
                out.put(table, d.disagreement());
            }
        });
        return out;
    }

    /** The rows of {@code sql} on {@code hostgroup}'s writer; fails on an ERR, or an OK where rows belong. */
    private Future<List<List<String>>> query(Hostgroup hostgroup, String sql, EventLoop loop) {
        Promise<List<List<String>>> rows = loop.newPromise();
        DirectStatement.run(
                        connector,
                        loop,
                        hostgroup.writer().address(),
                        hostgroup.ownLogin(),
                        sql,
                        hostgroup.config().monitor().timeoutMillis())
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        rows.tryFailure(f.cause());
                        return;
                    }
                    DirectStatement.Answer answer = (DirectStatement.Answer) f.getNow();
                    if (answer.error() != null) {
                        rows.tryFailure(new IllegalStateException("ERROR "
                                + answer.error().code() + ": " + answer.error().message()));
                    } else if (!answer.resultSet()) {
                        rows.tryFailure(new IllegalStateException("the query returned no result set"));
                    } else {
                        rows.trySuccess(answer.rows());
                    }
                });
        return rows;
    }

    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> s = schedule;
        if (s != null) {
            s.cancel(false);
        }
    }
}
