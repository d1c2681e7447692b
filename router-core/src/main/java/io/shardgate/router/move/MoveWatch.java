package io.shardgate.router.move;

import io.shardgate.cache.QualifiedTable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the cluster's moves in ZooKeeper ({@link MoveLog}) for this router: keeps {@link
 * MoveHolds} up to date, and when a move starts holding its statements, waits until every statement
 * this router dispatched before the hold has ended, then acknowledges the hold, so the mover knows
 * no statement of the old placement is still on its way to the source.
 */
public final class MoveWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MoveWatch.class);

    private final MoveLog moves;
    private final MoveHolds holds;
    private final String routerId;
    private final BiConsumer<Set<QualifiedTable>, Runnable> afterCutoverBarrier;
    private final CuratorCache cache;
    private final LongSupplier appliedVersion;
    /** Hold generations acknowledged (or being acknowledged), by move id. */
    private final Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
    /** One thread: rebuilds and acknowledgements run in order, off Curator's event thread. */
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "shardgate-move-watch");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param afterCutoverBarrier runs its second argument once every statement now on its way to or
     *     from a backend has ended, and every open transaction that touched one of the tables of its
     *     first ({@code SessionRegistry#afterCutoverBarrier})
     * @param appliedVersion the configuration version this router routes by now: a finished move's
     *     tables stay held until it reaches the version that switched them
     */
    public MoveWatch(
            MoveLog log,
            MoveHolds holds,
            String routerId,
            BiConsumer<Set<QualifiedTable>, Runnable> afterCutoverBarrier,
            LongSupplier appliedVersion) {
        this.moves = log;
        this.appliedVersion = appliedVersion;
        this.holds = holds;
        this.routerId = routerId;
        this.afterCutoverBarrier = afterCutoverBarrier;
        this.cache = CuratorCache.build(log.client(), log.base());
    }

    /** The holds this watch keeps up to date. */
    public MoveHolds holds() {
        return holds;
    }

    public void start() {
        cache.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forAll((type, before, after) -> rebuildSoon())
                        .forInitialized(this::rebuildSoon)
                        .build());
        cache.start();
    }

    /**
     * Rebuilds on the worker. The cache may still deliver an event while {@link #close} runs (its
     * notifier thread is its own): once the worker is shut down there is nothing left to rebuild.
     */
    private void rebuildSoon() {
        try {
            worker.execute(this::rebuild);
        } catch (RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    private void rebuild() {
        Map<QualifiedTable, String> moving = new HashMap<>();
        Set<QualifiedTable> held = new HashSet<>();
        Map<QualifiedTable, MovingTables.Cleanup> cleaning = new HashMap<>();
        Map<String, Integer> holding = new HashMap<>();
        boolean[] behind = {false};
        String prefix = moves.base() + "/";
        cache.stream().forEach(node -> {
            String path = node.getPath();
            if (!path.startsWith(prefix) || path.indexOf('/', prefix.length()) >= 0) {
                return; // the base itself, or an acknowledgement below a move
            }
            MoveRecord record = decode(node);
            if (record == null) {
                return;
            }
            if (!record.cleaningUp() && record.rulesVersion() > appliedVersion.getAsLong()) {
                // switched (done, or a whole-table move reversed), but not here yet: its statements wait
                // until this router routes by the new rules
                for (String table : record.tables()) {
                    QualifiedTable t = QualifiedTable.of(record.schema(), table);
                    moving.put(t, record.id());
                    held.add(t);
                }
                behind[0] = true;
                return;
            }
            if (record.streamingBack()) { // the reverse stream follows the table's shape: no DDL on it
                for (String table : record.tables()) {
                    moving.put(QualifiedTable.of(record.schema(), table), record.id());
                }
                return;
            }
            if (!record.active()) {
                return;
            }
            if (record.cleaningUp()) {
                boolean here = record.rulesVersion() <= appliedVersion.getAsLong();
                for (String table : record.tables()) {
                    QualifiedTable t = QualifiedTable.of(record.schema(), table);
                    moving.put(t, record.id());
                    if (here) { // only statements that may reach the source's stale copies wait
                        cleaning.put(
                                t, new MovingTables.Cleanup(record.rulesVersion(), record.keyWritesRunDuringCleanup()));
                    } else { // switched, but not here yet: everything waits for the new rules
                        held.add(t);
                    }
                }
                behind[0] |= !here;
                return;
            }
            for (String table : record.tables()) {
                QualifiedTable t = QualifiedTable.of(record.schema(), table);
                moving.put(t, record.id());
                if (record.holding()) {
                    held.add(t);
                }
            }
            if (record.holding()) {
                holding.put(record.id(), record.holdGeneration());
            }
        });
        holds.update(new MovingTables(moving, held, cleaning));
        if (behind[0]) {
            worker.schedule(this::rebuild, 10, TimeUnit.MILLISECONDS);
        }
        acknowledged.keySet().retainAll(holding.keySet());
        holding.forEach((id, generation) -> {
            if (!generation.equals(acknowledged.put(id, generation))) {
                // the hold applies to new statements from now on: acknowledge once those before it
                // ended, and the transactions that touched the held tables (they hold the source's locks)
                afterCutoverBarrier.accept(Set.copyOf(held), () -> worker.execute(() -> acknowledge(id, generation)));
            }
        });
    }

    private void acknowledge(String id, int generation) {
        try {
            moves.acknowledge(id, routerId, generation);
        } catch (Exception e) {
            acknowledged.remove(id, generation); // tried again at the next change
            LOG.warn("cannot acknowledge the hold of move {}: {}", id, e.toString());
        }
    }

    private static MoveRecord decode(ChildData node) {
        byte[] data = node.getData();
        if (data == null || data.length == 0) {
            return null; // being created
        }
        try {
            return MoveLog.decode(data);
        } catch (RuntimeException e) {
            LOG.warn("unreadable move record {}: {}", node.getPath(), e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        cache.close();
        worker.shutdownNow();
    }
}
