package io.shardgate.router.move;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.move.BucketMove;
import io.shardgate.move.MovingRows;
import io.shardgate.move.ProgressCodec;
import io.shardgate.move.RuleChange;
import io.shardgate.move.SourceMove;
import io.shardgate.move.TableCopy;
import io.shardgate.move.TableDiff;
import io.shardgate.move.TableMove;
import io.shardgate.move.binlog.BinlogPosition;
import io.shardgate.sharding.rule.KeyedStrategy;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.ShardingStrategy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries one move of hash buckets through its phases, from wherever its record says it stands (a
 * router that takes over a move after another's death resumes it here):
 *
 * <ol>
 *   <li><b>copying</b>: per source shard, the binary log position now, then each table's moving rows
 *       copied chunk by chunk (progress stored after each chunk);
 *   <li><b>catching_up</b>: the source's binary log followed from that position, changed rows
 *       refreshed on the target, until the target is level with the source;
 *   <li><b>verifying</b>: the moving rows compared on both sides; keys that differ are compared again
 *       after the catch-up moved on, and a key that keeps differing fails the move;
 *   <li><b>cutting_over</b>: every live router holds the tables' statements and acknowledges once
 *       its statements before the hold ended; the source's tables are write-locked (waiting for open
 *       transactions, bounded); the catch-up reaches the source's position; the new rules are
 *       published and the source unlocked. A cutover that cannot get the acknowledgements or the lock
 *       in time lets go and tries again, up to {@link MoveContext#attempts} times;
 *   <li><b>cleaning_up</b>: each router, once it routes by the new rules, runs the statements routed
 *       by the key again (they never reach a stale copy: {@link StatementHold#duringCleanup}) while
 *       the source's copies of the moved rows are deleted; the others wait until the move is done.
 * </ol>
 *
 * Runs on a thread of its own (blocking I/O). Every record update is a compare-and-set; a record
 * changed by someone else (a cancel) is re-read, and a move no longer active stops the job.
 */
final class MoveJob implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(MoveJob.class);
    private static final Duration SAVE_EVERY = Duration.ofSeconds(1);
    private static final int VERIFY_ROUNDS = 5;
    private static final Duration LEVEL_BEFORE_HOLD = Duration.ofSeconds(30);
    /** The schemas document before the switch, stored just before publishing it. */
    private static final String RULES_BEFORE = "rules.before";
    /** Progress: how many times a job of the move stopped on a lost connection and the move went on. */
    static final String RESUMED = "resumed";

    private final String id;
    private final MoveContext context;
    private final BooleanSupplier leading;
    private final Map<Integer, SourceMove> sources = new LinkedHashMap<>();
    private final Map<Integer, BinlogPosition> applied = new ConcurrentHashMap<>();
    private final AtomicLong rowsCopied = new AtomicLong();
    /** Rows the copy wrote a second, over this job's run of the table it copies (0 before). */
    private volatile long copyRate;

    private MoveLog.Stored stored;
    private long lastSave;
    /** The reverse stream of a done whole-table move, or null. */
    private SourceMove reverseStream;
    /** The reverse stream's rows counted in the stored progress already (this job's tail counts from 0). */
    private long reverseRowsSaved;

    /** @param leading whether this router is still the cluster's mover (a job that lost it never fails the move) */
    MoveJob(String id, MoveContext context, BooleanSupplier leading) {
        this.id = id;
        this.context = context;
        this.leading = leading;
    }

    /**
     * Thrown when the cleanup after the switch failed: the move stays held and active (never failed:
     * releasing it would show the source's stale copies), so the next scan resumes it and deletes them.
     */
    private static final class Switched extends Exception {
        private static final long serialVersionUID = 1L;

        Switched(Exception cause) {
            super("switched, but deleting the moved rows on the source failed (retried): " + cause.getMessage(), cause);
        }
    }

    /** Thrown when the move stopped being active under the job (cancelled). */
    private static final class Stopped extends Exception {
        private static final long serialVersionUID = 1L;

        Stopped(String why) {
            super(why, null, false, false);
        }
    }

    @Override
    public void run() {
        try {
            drive();
        } catch (Stopped e) {
            LOG.info("move {}: {}", id, e.getMessage());
        } catch (Switched e) {
            LOG.error("move {}: {}", id, e.getMessage(), e.getCause());
        } catch (Exception | AssertionError e) {
            if (Thread.currentThread().isInterrupted() || !leading.getAsBoolean()) {
                // this router stops (or lost the latch): the move is not failed, the next mover resumes it
                LOG.info("move {}: stopped on this router ({}); the cluster's next mover resumes it", id, e.toString());
                return;
            }
            if (resumeLater(e)) {
                return;
            }
            LOG.error("move {} failed", id, e);
            fail(e.getMessage() == null ? e.toString() : e.getMessage());
        } finally {
            sources.values().forEach(SourceMove::close);
            if (reverseStream != null) {
                reverseStream.close();
            }
        }
    }

    private void drive() throws Exception {
        stored = context.log().get(id);
        if (stored == null || !stored.record().needsMover()) {
            return;
        }
        MoveRecord record = stored.record();
        rowsCopied.set(record.progress().getOrDefault("rows_copied", 0L)); // a resumed copy adds to it
        ConfigVersion running = currentConfig();
        Planned planned = plan(record, running);
        if (record.tableMove() && (planned == null || record.switchedTable())) {
            tableAfterSwitch(record, running, planned);
            return;
        }
        if (planned == null) { // the running rules place the buckets on the target: a cutover switched them
            String before = checkpoint(RULES_BEFORE);
            if (before == null) {
                throw new IllegalStateException("the running rules place buckets " + record.what() + " on hostgroup "
                        + record.target() + ", but not by this move: its copy is not what the routers read");
            }
            Map<String, String> sections = new HashMap<>(running.documents().sections());
            sections.put(ConfigDocuments.SCHEMAS, before);
            openSources(record, context.rulesOf().apply(ConfigDocuments.of(sections)), planned(running));
            long version = record.cleaningUp() && record.rulesVersion() > 0 ? record.rulesVersion() : running.number();
            if (!record.cleaningUp()) {
                save(record.cleaning(version, now()));
            }
            long deleted = cleanUp(version); // what a router that died after the switch left (idempotent)
            LOG.info("move {}: resumed after the switch, {} stale rows deleted on the source", id, deleted);
            return;
        }
        if (record.holding()) { // a cutover was under way when its router died: its lock died with it
            save(record.withHold(0, now()).withState("catching_up", now()));
        }
        openSources(record, planned.runningRules(), planned.nextRules());
        if (stored.record().state().equals("copying")) {
            copy();
            save(stored.record().withState("catching_up", now()));
        }
        follow();
        awaitCaughtUp();
        save(stored.record().withState("verifying", now()));
        verify();
        save(stored.record().withState("cutting_over", now()));
        cutOver();
    }

    /** The running and the next rules of the move, or null when the running rules made the switch already. */
    private Planned plan(MoveRecord record, ConfigVersion running) {
        String schemas = running.documents().get(ConfigDocuments.SCHEMAS);
        RuleChange next;
        try {
            if (record.tableMove()) {
                next = TableMove.plan(schemas, record.schema(), record.tables().get(0), record.target());
            } else {
                String[] range = record.what().split("-");
                next = BucketMove.plan(
                        schemas,
                        record.schema(),
                        record.tables().get(0),
                        Integer.parseInt(range[0].trim()),
                        Integer.parseInt(range[1].trim()),
                        record.target());
            }
        } catch (IllegalArgumentException e) {
            if (e.getMessage().contains("already")) {
                return null;
            }
            throw e;
        }
        if (!next.tables().equals(record.tables()) || !next.sources().equals(record.sources())) {
            throw new IllegalStateException("the rules changed under the move: it moves " + record.tables() + " from "
                    + record.sources() + ", the running rules would move " + next.tables() + " from " + next.sources());
        }
        Map<String, String> sections = new HashMap<>(running.documents().sections());
        sections.put(ConfigDocuments.SCHEMAS, next.schemasDocument());
        ConfigDocuments nextDocuments = ConfigDocuments.of(sections);
        return new Planned(
                context.rulesOf().apply(running.documents()), context.rulesOf().apply(nextDocuments), nextDocuments);
    }

    private void openSources(MoveRecord record, RuleSnapshot before, RuleSnapshot after) throws SQLException {
        for (int source : record.sources()) {
            Map<String, MovingRows> moving = new LinkedHashMap<>();
            for (String table : record.tables()) {
                moving.put(
                        table,
                        MovingRows.of(
                                strategy(before, record.schema(), table),
                                strategy(after, record.schema(), table),
                                source,
                                record.target()));
            }
            sources.put(
                    source,
                    new SourceMove(
                            context.endpoint().apply(source),
                            context.endpoint().apply(record.target()),
                            record.schema(),
                            moving));
        }
    }

    /**
     * A whole-table move past its forward switch ({@code planned}: null while the running rules
     * place the table on the target, else the forward change they would allow again):
     * <ul>
     *   <li>switched back by a reverse cutover whose router died before saying so: {@code reversed};
     *   <li>switched by a cutover whose router died before saying so: {@code done};
     *   <li>{@code done}: the reverse stream runs until the record changes (reverse, cleanup);
     *   <li>{@code reversing}: the reverse stream catches up, then a cutover back to the source;
     *   <li>{@code cleaning_source}: the source's rows of the table are deleted, then {@code done}.
     * </ul>
     */
    private void tableAfterSwitch(MoveRecord record, ConfigVersion running, Planned planned) throws Exception {
        if (planned != null) { // the running rules place the table on the source again
            if (record.state().equals("reversing")) {
                save(record.reversed(running.number(), now()));
                return;
            }
            throw new IllegalStateException("the running rules place " + record.tables() + " on hostgroup "
                    + record.sources() + " again, not by this move: its reverse stream stops");
        }
        if (checkpoint(MoveRecord.REVERSE_FROM) == null) {
            throw new IllegalStateException("the running rules place " + record.tables() + " on hostgroup "
                    + record.target() + ", but not by this move: its copy is not what the routers read");
        }
        if (!record.switchedTable()) { // its cutover published the switch, then its router died
            save(record.done(running.number(), now()));
            return; // the next scan streams back
        }
        RuleSnapshot onTarget = planned(running);
        RuleSnapshot onSource = context.rulesOf().apply(backToSource(record, running));
        switch (record.state()) {
            case "cleaning_source" -> cleanSource(record, onSource, onTarget);
            case "reversing" -> reverse(record, onTarget, onSource);
            default -> streamBack(openReverse(record, onTarget, onSource));
        }
    }

    /** {@code running}'s documents with the moved table back on its source. */
    private static ConfigDocuments backToSource(MoveRecord record, ConfigVersion running) {
        RuleChange back = TableMove.plan(
                running.documents().get(ConfigDocuments.SCHEMAS),
                record.schema(),
                record.tables().get(0),
                record.sources().get(0));
        Map<String, String> sections = new HashMap<>(running.documents().sections());
        sections.put(ConfigDocuments.SCHEMAS, back.schemasDocument());
        return ConfigDocuments.of(sections);
    }

    /**
     * The reverse stream's data side: the target's table followed and applied to the source (the
     * same {@link SourceMove} as the catch-up, its ends swapped), from its stored position.
     */
    private SourceMove openReverse(MoveRecord record, RuleSnapshot onTarget, RuleSnapshot onSource) throws Exception {
        int source = record.sources().get(0);
        String table = record.tables().get(0);
        SourceMove reverse = new SourceMove(
                context.endpoint().apply(record.target()),
                context.endpoint().apply(source),
                record.schema(),
                Map.of(
                        table,
                        MovingRows.of(
                                strategy(onTarget, record.schema(), table),
                                strategy(onSource, record.schema(), table),
                                record.target(),
                                source)));
        reverseStream = reverse; // closed with the job
        String from = checkpoint(MoveRecord.REVERSE_APPLIED);
        BinlogPosition start = BinlogPosition.parse(from != null ? from : checkpoint(MoveRecord.REVERSE_FROM));
        long sequence = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
        // a server id of its own: the forward catch-up's ids run below 0x5347_0000 + 0xFFFF
        long serverId = 0x5348_0000L + (sequence * 64 + record.target()) % 0xFFFF;
        reverse.follow(
                start,
                serverId,
                context.chunkRows(),
                (position, keys) -> context.metrics().streamedBack(keys));
        return reverse;
    }

    /**
     * A done whole-table move's reverse stream: follows the target until the move's record changes
     * (someone asked for the reverse or the cleanup: the next scan's job does that) or this router
     * stops being the mover; stores its position and progress as it goes.
     */
    private void streamBack(SourceMove reverse) throws Exception {
        LOG.info("move {}: reverse stream from {}", id, reverse.applied());
        BinlogPosition saved = reverse.applied();
        while (true) {
            failIfTailFailed(reverse);
            reverse.catchUp(Duration.ofSeconds(1));
            MoveLog.Stored now = context.log().get(id);
            if (now == null || now.version() != stored.version()) {
                throw new Stopped("the reverse stream stops: the move is "
                        + (now == null ? "gone" : now.record().state()));
            }
            if (!leading.getAsBoolean()) {
                throw new Stopped("the reverse stream stops: this router is no longer the mover");
            }
            BinlogPosition at = reverse.applied();
            if (!at.equals(saved) && System.nanoTime() - lastSave > SAVE_EVERY.toNanos()) {
                saveReverse(reverse, at);
                saved = at;
            }
        }
    }

    private void saveReverse(SourceMove reverse, BinlogPosition at) throws Exception {
        Map<String, String> checkpoints = new HashMap<>(stored.record().checkpoints());
        checkpoints.put(MoveRecord.REVERSE_APPLIED, at.toString());
        Map<String, Long> progress = new HashMap<>(stored.record().progress());
        progress.put(
                "reverse_rows",
                progress.getOrDefault("reverse_rows", 0L) + reverse.tail().rows() - reverseRowsSaved);
        reverseRowsSaved = reverse.tail().rows();
        long lag = reverse.lagBytes();
        if (lag >= 0) {
            progress.put("reverse_lag_bytes", lag);
        } else {
            progress.remove("reverse_lag_bytes");
        }
        save(stored.record().withProgress(progress, checkpoints, now()));
    }

    /**
     * {@code reversing}: the reverse stream catches up, then a cutover switches the table back to
     * the source (the target's table write-locked, the stream level with it, the old hostgroup
     * published); the move is {@code reversed} then. A cutover that does not succeed in its attempts
     * leaves the move done (its reverse stream runs on), with the reason in {@code error}.
     */
    private void reverse(MoveRecord record, RuleSnapshot onTarget, RuleSnapshot onSource) throws Exception {
        if (record.holding()) { // a reverse cutover was under way when its router died: its lock died with it
            save(record.withHold(0, now()));
        }
        SourceMove reverse = openReverse(record, onTarget, onSource);
        while (!reverse.catchUp(Duration.ofSeconds(1))) {
            failIfTailFailed(reverse);
            saveReverse(reverse, reverse.applied());
        }
        boolean switched = cutOver(
                List.of(reverse),
                saveNow -> saveReverse(reverse, reverse.applied()),
                running -> {
                    checkpoint(MoveRecord.REVERSE_APPLIED, reverse.applied().toString(), true);
                    return backToSource(stored.record(), running);
                },
                (published, heldNanos) -> {
                    Map<String, Long> progress = new HashMap<>(stored.record().progress());
                    progress.put("reverse_hold_millis", heldNanos / 1_000_000);
                    save(stored.record()
                            .withProgress(progress, stored.record().checkpoints(), now())
                            .reversed(published.number(), now()));
                    LOG.info(
                            "move {}: reversed, rules version {} (statements held {} ms)",
                            id,
                            published.number(),
                            heldNanos / 1_000_000);
                });
        if (!switched) {
            save(stored.record()
                    .switchedWithError(
                            "reverse: the cutover back did not succeed in " + context.attempts()
                                    + " attempts; the reverse stream runs on, ask again",
                            false,
                            now()));
        }
    }

    /**
     * {@code cleaning_source}: the reverse stream stopped (no job follows the target any more), the
     * source's rows of the moved table are deleted as a bucket move's cleanup deletes its moved rows
     * (by primary key, a chunk at a time; never DROP TABLE); done then, not reversible.
     */
    private void cleanSource(MoveRecord record, RuleSnapshot onSource, RuleSnapshot onTarget) throws Exception {
        openSources(record, onSource, onTarget);
        long started = System.nanoTime();
        long deleted = deleteMoved();
        Map<String, Long> progress = new HashMap<>(stored.record().progress());
        progress.put("rows_deleted_on_source", deleted);
        progress.put("cleanup_millis", (System.nanoTime() - started) / 1_000_000);
        save(stored.record()
                .withProgress(progress, stored.record().checkpoints(), now())
                .sourceCleaned(now()));
        LOG.info("move {}: source cleaned up, {} rows deleted", id, deleted);
    }

    /** The rules {@code running} gives (after the switch: the rules the move switched to). */
    private RuleSnapshot planned(ConfigVersion running) {
        return context.rulesOf().apply(running.documents());
    }

    /** Deletes the moved rows' stale copies on every source; returns how many. */
    private long deleteMoved() throws SQLException {
        long deleted = 0;
        for (SourceMove move : sources.values()) {
            for (String table : move.tables()) {
                deleted += move.deleteMoved(table, context.chunkRows());
            }
        }
        return deleted;
    }

    private record Planned(RuleSnapshot runningRules, RuleSnapshot nextRules, ConfigDocuments nextDocuments) {}

    private static ShardingStrategy strategy(RuleSnapshot rules, String schema, String table) {
        return rules.schema(schema).resolve(table).strategy();
    }

    private void copy() throws Exception {
        for (Map.Entry<Integer, SourceMove> e : sources.entrySet()) {
            int source = e.getKey();
            SourceMove move = e.getValue();
            if (checkpoint("start." + source) == null) {
                checkpoint("start." + source, move.startPosition().toString(), true);
            }
            for (String table : move.tables()) {
                String key = "copy." + source + "." + table;
                String stored = checkpoint(key);
                TableCopy.Progress from = stored == null ? TableCopy.Progress.START : ProgressCodec.decode(stored);
                long[] counted = {from.rowsCopied()};
                long started = System.nanoTime();
                long readBefore = from.rowsRead();
                move.copy(table, from, context.chunkRows(), p -> {
                    rowsCopied.addAndGet(p.rowsCopied() - counted[0]);
                    context.metrics().copied(p.rowsCopied() - counted[0]);
                    counted[0] = p.rowsCopied();
                    long elapsed = Math.max(1, System.nanoTime() - started);
                    copyRate = (p.rowsCopied() - from.rowsCopied()) * 1_000_000_000L / elapsed;
                    throttle(p.rowsRead() - readBefore, started);
                    try {
                        checkpoint(key, ProgressCodec.encode(p), p.done());
                    } catch (Exception failure) {
                        throw new SQLException("cannot store the copy's progress: " + failure, failure);
                    }
                });
            }
        }
    }

    /** Sleeps as long as the copy is ahead of the move's {@code copyRowsPerSecond}. */
    private void throttle(long rowsRead, long startedNanos) throws SQLException {
        long limit = stored.record().copyRowsPerSecond();
        if (limit <= 0) {
            return;
        }
        long dueNanos = startedNanos + rowsRead * 1_000_000_000L / limit;
        long ahead = dueNanos - System.nanoTime();
        if (ahead > 0) {
            try {
                Thread.sleep(ahead / 1_000_000, (int) (ahead % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted", e);
            }
        }
    }

    private void follow() throws Exception {
        long sequence = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
        for (Map.Entry<Integer, SourceMove> e : sources.entrySet()) {
            int source = e.getKey();
            String from = checkpoint("applied." + source);
            BinlogPosition start = BinlogPosition.parse(from != null ? from : checkpoint("start." + source));
            applied.put(source, start);
            // a server id per move and source, far from the ids operators give replicas
            long serverId = 0x5347_0000L + (sequence * 64 + source) % 0xFFFF;
            e.getValue().follow(start, serverId, context.chunkRows(), (position, keys) -> {
                applied.put(source, position);
                context.metrics().caughtUp(keys);
            });
        }
    }

    /** Waits until the catch-up is level with every source (storing its position as it goes). */
    private void awaitCaughtUp() throws Exception {
        while (true) {
            boolean level = true;
            for (SourceMove move : sources.values()) {
                failIfTailFailed(move);
                level &= move.catchUp(Duration.ofSeconds(1));
            }
            saveApplied(false);
            if (level) {
                return;
            }
        }
    }

    private void verify() throws Exception {
        for (SourceMove move : sources.values()) {
            for (String table : move.tables()) {
                TableDiff.Result result = move.diff(table, context.chunkRows());
                List<Object[]> differing = result.differingKeys();
                for (int round = 0; !differing.isEmpty() && round < VERIFY_ROUNDS; round++) {
                    failIfTailFailed(move);
                    move.catchUp(Duration.ofSeconds(5));
                    if (result.overflow() && round == 0) {
                        result = move.diff(table, context.chunkRows()); // too many to recheck: walk again
                        differing = result.differingKeys();
                    } else {
                        differing = move.recheck(table, differing, context.chunkRows());
                    }
                    saveApplied(false);
                }
                if (!differing.isEmpty()) {
                    throw new IllegalStateException("verify: " + differing.size() + " rows of " + table
                            + " differ between the source and the target after the catch-up (first at key "
                            + java.util.Arrays.toString(differing.get(0)) + ")");
                }
                progress("verified." + table, result.sourceRows());
            }
        }
    }

    /**
     * The cleanup after the switch (the record says {@code cleaning_up}, so the routers hold only the
     * statements that could reach the source's stale copies): deletes them and marks the move done
     * with rules {@code version}; returns the rows deleted.
     */
    private long cleanUp(long version) throws Exception {
        long started = System.nanoTime();
        long deleted = deleteMoved();
        long tookNanos = System.nanoTime() - started;
        context.metrics().cleanedUp(Duration.ofNanos(tookNanos));
        Map<String, Long> progress = new HashMap<>(stored.record().progress());
        progress.put("rows_deleted_on_source", deleted);
        progress.put("cleanup_millis", tookNanos / 1_000_000);
        save(stored.record().withProgress(progress, stored.record().checkpoints(), now()));
        save(stored.record().done(version, now()));
        return deleted;
    }

    /**
     * "run" when every unique index of every moving table holds its sharding column (then a write
     * routed by the key cannot meet a stale copy during the cleanup), else the indexes that do not.
     */
    private String keyWrites(RuleSnapshot rules) throws SQLException {
        List<String> without = new ArrayList<>();
        MoveRecord record = stored.record();
        for (SourceMove move : sources.values()) {
            for (String table : move.tables()) {
                if (!(strategy(rules, record.schema(), table) instanceof KeyedStrategy keyed)) {
                    without.add(table + " (not keyed)");
                    continue;
                }
                for (String index : move.uniqueIndexesWithout(table, keyed.column())) {
                    without.add(table + "." + index);
                }
            }
        }
        return without.isEmpty() ? "run" : "wait: unique indexes without the sharding column " + without;
    }

    /** What a switched cutover does next, its statements still held ({@code heldNanos} so far). */
    @FunctionalInterface
    private interface AfterSwitch {
        void switched(ConfigVersion published, long heldNanos) throws Exception;
    }

    /** Stores the catch-up's position and progress ({@code now}: at once, else at most every second). */
    @FunctionalInterface
    private interface SaveProgress {
        void save(boolean now) throws Exception;
    }

    /** The documents to publish at a cutover, given the running version (may store checkpoints first). */
    @FunctionalInterface
    private interface NextRules {
        ConfigDocuments of(ConfigVersion running) throws Exception;
    }

    /** The forward cutover of the move's rows from {@link #sources}: cleanup (buckets) or done (a whole table). */
    private void cutOver() throws Exception {
        boolean table = stored.record().tableMove();
        if (!table) {
            checkpoint(MoveRecord.KEY_WRITES, keyWrites(planned(currentConfig())), true);
        }
        boolean switched = cutOver(
                sources.values(),
                this::saveApplied,
                running -> {
                    if (table) { // nothing writes the target's table now: the reverse stream starts here
                        checkpoint(
                                MoveRecord.REVERSE_FROM,
                                sources.values()
                                        .iterator()
                                        .next()
                                        .targetPosition()
                                        .toString(),
                                false);
                    }
                    checkpoint(RULES_BEFORE, running.documents().get(ConfigDocuments.SCHEMAS), true);
                    return plan(stored.record(), running).nextDocuments();
                },
                (published, heldNanos) -> {
                    Map<String, Long> progress = new HashMap<>(stored.record().progress());
                    progress.put("hold_millis", heldNanos / 1_000_000);
                    MoveRecord next = stored.record()
                            .withProgress(progress, stored.record().checkpoints(), now());
                    if (table) { // the source's copy stays, followed back by the reverse stream (next scan)
                        save(next.done(published.number(), now()));
                        LOG.info(
                                "move {}: done, rules version {} (statements held {} ms); the source's copy is kept",
                                id,
                                published.number(),
                                heldNanos / 1_000_000);
                        return;
                    }
                    save(next.cleaning(published.number(), now()));
                    long deleted = cleanUp(published.number());
                    LOG.info(
                            "move {}: done, rules version {} (every statement held {} ms; then {} stale rows"
                                    + " deleted on the source in {} ms, while statements routed by the key ran)",
                            id,
                            published.number(),
                            heldNanos / 1_000_000,
                            deleted,
                            stored.record().progress().get("cleanup_millis"));
                });
        if (!switched) {
            throw new IllegalStateException("the cutover did not succeed in " + context.attempts() + " attempts");
        }
    }

    /**
     * Holds the tables on every live router, write-locks them on the side rows leave ({@code moves}'
     * sources), lets the catch-up reach that side's position, publishes {@code next} and stops the
     * catch-up; then {@code after}. Tries {@link MoveContext#attempts} times; false when none switched.
     */
    private boolean cutOver(Collection<SourceMove> moves, SaveProgress progress, NextRules next, AfterSwitch after)
            throws Exception {
        for (int attempt = 1; attempt <= context.attempts(); attempt++) {
            for (SourceMove move : moves) {
                move.catchUp(LEVEL_BEFORE_HOLD); // hold with as little left to apply as possible
            }
            progress.save(false);
            // never reused, also across routers that resumed the move: an old acknowledgement cannot count
            String last = checkpoint("hold.last");
            int generation = (last == null ? 0 : Integer.parseInt(last)) + 1;
            checkpoint("hold.last", Integer.toString(generation), false);
            long started = System.nanoTime();
            save(stored.record().withHold(generation, now()));
            String why = null;
            try {
                why = holdAcknowledged(generation);
                if (why == null) {
                    for (SourceMove move : moves) {
                        move.lockSource(context.lockTimeout());
                    }
                    for (SourceMove move : moves) {
                        failIfTailFailed(move);
                        if (!move.catchUp(context.catchUpTimeout())) {
                            why = "the catch-up did not reach the source's position within " + context.catchUpTimeout();
                        }
                    }
                }
                if (why == null) {
                    progress.save(true);
                    ConfigVersion running = currentConfig();
                    ConfigVersion published = context.store().publish(running.number(), next.of(running));
                    // switched: from here the move only goes forward (the routers hold until it says so)
                    try {
                        for (SourceMove move : moves) {
                            move.stopFollowing();
                            move.unlock(); // the side rows left serves what it kept from now on
                        }
                        long heldNanos = System.nanoTime() - started;
                        context.metrics().switched(Duration.ofNanos(heldNanos));
                        after.switched(published, heldNanos);
                        return true;
                    } catch (Exception e) {
                        throw new Switched(e);
                    }
                }
            } catch (SQLException e) {
                why = "the source's write lock: " + e.getMessage();
            } finally {
                for (SourceMove move : moves) {
                    try {
                        move.unlock();
                    } catch (SQLException ignored) {
                        // the connection is closed with it
                    }
                }
            }
            LOG.warn("move {}: cutover attempt {} let go: {}", id, attempt, why);
            context.metrics().letGo();
            save(stored.record().withHold(0, now()));
            Thread.sleep(500L * attempt);
        }
        return false;
    }

    /** Null once every live router acknowledged hold {@code generation}; else why not. */
    private String holdAcknowledged(int generation) throws Exception {
        long deadline = System.nanoTime() + context.ackTimeout().toNanos();
        List<String> missing;
        do {
            List<String> acknowledged = context.log().acknowledged(id, generation);
            missing = new ArrayList<>();
            for (LiveRouter router : context.store().liveRouters()) {
                if (!acknowledged.contains(router.id())) {
                    missing.add(router.id());
                }
            }
            if (missing.isEmpty()) {
                return null;
            }
            Thread.sleep(5);
        } while (System.nanoTime() < deadline);
        return "routers " + missing + " did not hold the tables within " + context.ackTimeout();
    }

    private void failIfTailFailed(SourceMove move) {
        move.failure().ifPresent(f -> {
            throw new IllegalStateException("the binary log catch-up of " + move + " stopped: " + f.getMessage(), f);
        });
    }

    private ConfigVersion currentConfig() {
        return context.store().current().orElseThrow(() -> new IllegalStateException("no configuration version"));
    }

    private String checkpoint(String key) {
        return stored.record().checkpoints().get(key);
    }

    private void checkpoint(String key, String value, boolean now) throws Exception {
        Map<String, String> checkpoints = new HashMap<>(stored.record().checkpoints());
        checkpoints.put(key, value);
        Map<String, Long> progress = new HashMap<>(stored.record().progress());
        progress.put("rows_copied", rowsCopied.get());
        if (copyRate > 0) {
            progress.put("rows_per_second", copyRate);
        }
        MoveRecord next = stored.record().withProgress(progress, checkpoints, now());
        if (now || System.nanoTime() - lastSave > SAVE_EVERY.toNanos()) {
            save(next);
        } else {
            stored = new MoveLog.Stored(next, stored.version()); // saved with the next save
        }
    }

    private void saveApplied(boolean now) throws Exception {
        // measured with the periodic saves only, not under a cutover's hold
        long lag = System.nanoTime() - lastSave > SAVE_EVERY.toNanos() ? lagBytes() : Long.MIN_VALUE;
        for (Map.Entry<Integer, BinlogPosition> e : applied.entrySet()) {
            checkpoint("applied." + e.getKey(), e.getValue().toString(), false);
        }
        Map<String, Long> progress = new HashMap<>(stored.record().progress());
        long rows = 0;
        for (SourceMove move : sources.values()) {
            rows += move.tail() == null ? 0 : move.tail().rows();
        }
        progress.put("binlog_rows", rows);
        if (lag >= 0) {
            progress.put("lag_bytes", lag);
        } else if (lag == -1) {
            progress.remove("lag_bytes"); // a source's log rotated past the applied position: not known
        }
        MoveRecord next = stored.record().withProgress(progress, stored.record().checkpoints(), now());
        if (now || System.nanoTime() - lastSave > SAVE_EVERY.toNanos()) {
            save(next);
        } else {
            stored = new MoveLog.Stored(next, stored.version());
        }
    }

    /** The bytes of the sources' binary logs the catch-up has still to apply; -1 when not known. */
    private long lagBytes() throws SQLException {
        long lag = 0;
        for (SourceMove move : sources.values()) {
            long behind = move.tail() == null ? -1 : move.lagBytes();
            lag = behind < 0 || lag < 0 ? -1 : lag + behind;
        }
        return lag;
    }

    private void progress(String name, long value) throws Exception {
        Map<String, Long> progress = new HashMap<>(stored.record().progress());
        progress.put(name, value);
        save(stored.record().withProgress(progress, stored.record().checkpoints(), now()));
    }

    /** Stores {@code next}; when someone else changed the record, re-reads it and stops unless still active. */
    private void save(MoveRecord next) throws Exception {
        try {
            stored = context.log().update(next, stored.version());
            lastSave = System.nanoTime();
        } catch (KeeperException.BadVersionException e) {
            MoveLog.Stored now = context.log().get(id);
            if (now == null
                    || !now.record().needsMover()
                    || !now.record().state().equals(stored.record().state())) {
                throw new Stopped("stopped: the move is "
                        + (now == null ? "gone" : now.record().state()));
            }
            throw new IllegalStateException("another writer changed move " + id + " (two routers run it?)", e);
        }
    }

    /**
     * Leaves the move to the next scan when {@code e} is a shard's lost connection ({@link
     * MoveResume}), counting the resume in its progress; false when the move must fail instead.
     */
    private boolean resumeLater(Throwable e) {
        try {
            MoveLog.Stored now = context.log().get(id);
            if (now == null || !now.record().needsMover()) {
                return true; // cancelled meanwhile: nothing to fail
            }
            long resumed = now.record().progress().getOrDefault(RESUMED, 0L);
            if (!MoveResume.resumes(e, resumed)) {
                return false;
            }
            Map<String, Long> progress = new HashMap<>(now.record().progress());
            progress.put(RESUMED, resumed + 1);
            context.log()
                    .update(now.record().withProgress(progress, now.record().checkpoints(), now()), now.version());
            LOG.warn(
                    "move {}: {} while {}; it resumes from its checkpoints (resume {} of {})",
                    id,
                    e.toString(),
                    now.record().state(),
                    resumed + 1,
                    MoveResume.LIMIT);
            return true;
        } catch (Exception failure) {
            LOG.warn("move {}: cannot record the resume ({}); it fails", id, failure.toString());
            return false;
        }
    }

    private void fail(String why) {
        try {
            MoveLog.Stored now = context.log().get(id);
            if (now != null && now.record().switchedTable()) { // never "failed": the table is on the target
                context.log().update(now.record().switchedWithError(why, true, now()), now.version());
            } else if (now != null && now.record().active()) {
                context.log().update(now.record().failed(why, now()), now.version());
            }
        } catch (Exception e) {
            LOG.error("move {}: cannot record its failure", id, e);
        }
    }

    private static long now() {
        return System.currentTimeMillis();
    }
}
