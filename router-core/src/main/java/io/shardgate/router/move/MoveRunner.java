package io.shardgate.router.move;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.admin.http.MoveControl;
import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.move.BucketMove;
import io.shardgate.move.RuleChange;
import io.shardgate.move.TableMove;
import io.shardgate.move.TableMoveTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts moves (for the admin interfaces) and runs them: one router of the cluster is the mover
 * (a Curator leader latch); it looks for active moves every second and runs each in a {@link
 * MoveJob} of its own, resuming where the record stands. When the mover dies, another router takes
 * the latch and the moves resume there.
 */
public final class MoveRunner implements MoveControl, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MoveRunner.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern BUCKETS = Pattern.compile("\\s*(\\d{1,9})\\s*-\\s*(\\d{1,9})\\s*");

    private final MoveContext context;
    private final IntPredicate hostgroupExists;
    private final LeaderLatch latch;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;
    private final ScheduledExecutorService scan =
            Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "shardgate-mover"));
    private final ExecutorService jobs = Executors.newCachedThreadPool(r -> daemon(r, "shardgate-move-job"));

    public MoveRunner(
            MoveContext context, IntPredicate hostgroupExists, CuratorFramework client, String root, String routerId) {
        this.context = context;
        this.hostgroupExists = hostgroupExists;
        this.latch = new LeaderLatch(client, root + "/moves-leader", routerId);
    }

    /** Takes part in the mover's election (a router with {@code server.run_moves: false} does not). */
    public void start() throws Exception {
        latch.start();
        scan.scheduleWithFixedDelay(this::scan, 1, 1, TimeUnit.SECONDS);
    }

    /** Whether this router is the cluster's mover now (not while it stops). */
    public boolean leading() {
        return !closing && latch.hasLeadership();
    }

    private void scan() {
        if (!latch.hasLeadership()) {
            return;
        }
        try {
            for (MoveLog.Stored s : context.log().list()) {
                String id = s.record().id();
                if (s.record().needsMover() && running.add(id)) {
                    jobs.execute(() -> {
                        try {
                            new MoveJob(id, context, this::leading).run();
                        } finally {
                            running.remove(id);
                        }
                    });
                }
            }
        } catch (Exception e) {
            LOG.warn("cannot list the moves: {}", e.toString());
        }
    }

    @Override
    public String start(String schema, String table, String buckets, int to, long copyRowsPerSecond) throws Exception {
        if (copyRowsPerSecond < 0) {
            throw new IllegalArgumentException("copy_rows_per_second must be 0 (no limit) or positive");
        }
        boolean wholeTable = TableMove.WHOLE_TABLE.equals(buckets.trim());
        Matcher m = BUCKETS.matcher(buckets);
        if (!wholeTable && !m.matches()) {
            throw new IllegalArgumentException("buckets must be a range like \"512-1023\" or \"table\" (a whole"
                    + " table of a 'table' rule; range splits are not built yet), was \"" + buckets + "\"");
        }
        if (!hostgroupExists.test(to)) {
            throw new IllegalArgumentException("hostgroup " + to + " is not declared: add it to the hostgroups first");
        }
        ConfigVersion running = context.store()
                .current()
                .orElseThrow(() -> new IllegalStateException("no configuration version loaded yet"));
        String schemas = running.documents().get(ConfigDocuments.SCHEMAS);
        RuleChange planned = wholeTable
                ? TableMove.plan(schemas, schema, table, to)
                : BucketMove.plan(
                        schemas, schema, table, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), to);
        String what = wholeTable ? TableMove.WHOLE_TABLE : m.group(1) + "-" + m.group(2);
        for (MoveLog.Stored s : context.log().list()) {
            MoveRecord other = s.record();
            if (other.needsMover()
                    && other.schema().equalsIgnoreCase(schema)
                    && !java.util.Collections.disjoint(lower(other.tables()), lower(planned.tables()))) {
                throw new IllegalStateException("move " + other.id() + " of " + other.tables() + " is "
                        + (other.active() ? "under way" : "done, its reverse stream runs: clean it up or reverse it"));
            }
        }
        if (wholeTable) {
            TableMoveTarget.check(
                    context.endpoint().apply(to), to, schema, planned.tables().get(0));
        }
        long now = System.currentTimeMillis();
        MoveLog.Stored created = context.log()
                .create(new MoveRecord(
                        null,
                        schema,
                        planned.tables(),
                        planned.sources(),
                        to,
                        what,
                        copyRowsPerSecond,
                        "copying",
                        0,
                        null,
                        now,
                        now,
                        Map.of(),
                        Map.of(),
                        0));
        LOG.info(
                "move {} started: {}.{} {} from {} to hostgroup {}",
                created.record().id(),
                schema,
                planned.tables(),
                wholeTable ? "whole" : "buckets " + what,
                planned.sources(),
                to);
        return created.record().id();
    }

    private static List<String> lower(List<String> names) {
        return names.stream().map(n -> n.toLowerCase(java.util.Locale.ROOT)).toList();
    }

    @Override
    public List<Map<String, Object>> list() throws Exception {
        List<Map<String, Object>> out = new ArrayList<>();
        for (MoveLog.Stored s : context.log().list()) {
            out.add(shown(s.record()));
        }
        return out;
    }

    @Override
    public Map<String, Object> get(String id) throws Exception {
        MoveLog.Stored s = context.log().get(id);
        return s == null ? null : shown(s.record());
    }

    @Override
    public void cancel(String id) throws Exception {
        transition(id, r -> r.cancelled(System.currentTimeMillis()));
    }

    @Override
    public void reverse(String id) throws Exception {
        transition(id, r -> r.reversing(System.currentTimeMillis()));
    }

    @Override
    public void cleanup(String id) throws Exception {
        transition(id, r -> r.cleaningSource(System.currentTimeMillis()));
    }

    /** Stores {@code next} of move {@code id}'s record, again on the new record when the mover saved meanwhile. */
    private void transition(String id, java.util.function.UnaryOperator<MoveRecord> next) throws Exception {
        while (true) {
            MoveLog.Stored s = context.log().get(id);
            if (s == null) {
                throw new IllegalArgumentException("no move " + id);
            }
            try {
                context.log().update(next.apply(s.record()), s.version());
                return;
            } catch (org.apache.zookeeper.KeeperException.BadVersionException raced) {
                // the mover saved progress meanwhile: try again on the new record
            }
        }
    }

    private static Map<String, Object> shown(MoveRecord record) {
        Map<String, Object> map = JSON.convertValue(record, new TypeReference<Map<String, Object>>() {});
        map.remove("checkpoints"); // resume positions: the mover's business
        return map;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        closing = true;
        scan.shutdownNow();
        jobs.shutdownNow();
        if (latch.getState() != LeaderLatch.State.STARTED) {
            return;
        }
        try {
            latch.close();
        } catch (Exception e) {
            LOG.debug("closing the mover's latch: {}", e.toString());
        }
    }
}
