package io.shardgate.router.move;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardgate.move.TableMove;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One move as ZooKeeper keeps it ({@link MoveLog}): what moves, where it stands, and whether the
 * routers must hold its tables' statements now. The mover updates it; every router reads it.
 *
 * @param id {@code m-0000000001}
 * @param tables the tables that move together (a binding group's tables move at once), unqualified
 * @param sources the hostgroups rows leave
 * @param target the hostgroup they go to
 * @param what the operator's request: {@code "lo-hi"} buckets, {@code "table"} or {@code "range"}
 * @param copyRowsPerSecond the most source rows the copy reads per second (0: as fast as it goes)
 * @param state one of {@link #STATES}
 * @param holdGeneration 0 while the routers run the tables' statements; n > 0 while cutover attempt
 *     n holds them (each router acknowledges the generation it holds: {@link MoveLog#acknowledge})
 * @param error why the move failed, or null
 * @param progress counters by name (rows copied, rows per second, lag...), for the admin views
 * @param checkpoints where each part stands, to resume from ({@code start.<hostgroup>}: the source's
 *     binary log position before the copy; {@code copy.<hostgroup>.<table>}: a copy's progress;
 *     {@code applied.<hostgroup>}: the catch-up's resume position; {@link #KEY_WRITES}: whether
 *     key-routed writes may run while the source is cleaned up)
 * @param rulesVersion the configuration version that switched the rows to the target (0 until the
 *     cutover published it): routers hold the tables' statements until they run that version, and
 *     while the move is {@code cleaning_up} they hold only those that may reach the source's stale
 *     copies ({@link StatementHold#duringCleanup})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MoveRecord(
        String id,
        String schema,
        List<String> tables,
        List<Integer> sources,
        int target,
        String what,
        long copyRowsPerSecond,
        String state,
        int holdGeneration,
        String error,
        long createdAtMillis,
        long updatedAtMillis,
        Map<String, Long> progress,
        Map<String, String> checkpoints,
        long rulesVersion) {

    /**
     * The states. A move of hash buckets goes copying, catching_up, verifying, cutting_over,
     * cleaning_up, done; a whole-table move copying ... cutting_over, done (its source's copy kept and
     * followed by the reverse stream), then optionally reversing (a cutover back to the source) to
     * reversed, or cleaning_source (the source's rows deleted) back to done. Failed and cancelled end
     * a move before its switch.
     */
    public static final List<String> STATES = List.of(
            "copying",
            "catching_up",
            "verifying",
            "cutting_over",
            "cleaning_up",
            "done",
            "reversing",
            "cleaning_source",
            "reversed",
            "failed",
            "cancelled");

    /** A whole-table move's target binary log position at the switch: where its reverse stream starts. */
    public static final String REVERSE_FROM = "reverse.from";

    /** A whole-table move's reverse stream: the target's binary log position applied on the source. */
    public static final String REVERSE_APPLIED = "reverse.applied";

    /** Why a whole-table move's reverse stream stopped for good (it cannot be reversed then). */
    public static final String REVERSE_STOPPED = "reverse.stopped";

    /** {@code "started"} once a whole-table move's source cleanup began, {@code "done"} once it ended. */
    public static final String SOURCE_CLEANUP = "source.cleanup";

    /**
     * The checkpoint saying whether key-routed writes run during the cleanup ({@code "run"}: every
     * unique index of every moving table holds the sharding column, so such a write can never meet a
     * stale copy; anything else: they wait with the multi-shard statements).
     */
    public static final String KEY_WRITES = "cleanup.key_writes";

    private static final Set<String> ENDED = Set.of("done", "reversed", "failed", "cancelled");

    public MoveRecord {
        tables = List.copyOf(tables);
        sources = List.copyOf(sources);
        progress = progress == null ? Map.of() : Map.copyOf(progress);
        checkpoints = checkpoints == null ? Map.of() : Map.copyOf(checkpoints);
        if (!STATES.contains(state)) {
            throw new IllegalArgumentException("unknown move state '" + state + "'");
        }
    }

    /** Whether the move still runs (its tables refuse DDL). */
    public boolean active() {
        return !ended(state);
    }

    /** Whether {@code state} is one a move ends in: done, reversed, failed or cancelled. */
    public static boolean ended(String state) {
        return ENDED.contains(state);
    }

    /** Whether it moves a whole table of a {@code table} rule ({@code "buckets": "table"}). */
    public boolean tableMove() {
        return TableMove.WHOLE_TABLE.equals(what);
    }

    /**
     * Whether it is a whole-table move done and kept in step the other way round: the mover follows
     * the target's binary log and applies it to the source, so the move can be reversed.
     */
    public boolean streamingBack() {
        return state.equals("done")
                && tableMove()
                && checkpoints.containsKey(REVERSE_FROM)
                && !checkpoints.containsKey(REVERSE_STOPPED)
                && !checkpoints.containsKey(SOURCE_CLEANUP);
    }

    /** Whether the cluster's mover runs a job for it: active, or {@link #streamingBack}. */
    public boolean needsMover() {
        return active() || streamingBack();
    }

    /** Whether a whole-table move switched its table to the target (and has not switched it back). */
    public boolean switchedTable() {
        return tableMove() && (state.equals("done") || state.equals("reversing") || state.equals("cleaning_source"));
    }

    /**
     * The same move cancelled.
     *
     * @throws IllegalStateException (409) when it ended, cuts over or switched already
     */
    public MoveRecord cancelled(long nowMillis) {
        if (!active()) {
            throw new IllegalStateException("move " + id + " is " + state + " already");
        }
        if (state.equals("cutting_over")) {
            throw new IllegalStateException("move " + id + " is cutting over: it ends within seconds, done or"
                    + " back to catching up; cancel it then");
        }
        if (cleaningUp()) {
            throw new IllegalStateException(
                    "move " + id + " switched already: it deletes the source's stale copies and is done then");
        }
        if (switchedTable()) {
            throw new IllegalStateException("move " + id + " switched already (" + state + "): reverse it instead");
        }
        return withState("cancelled", nowMillis);
    }

    /**
     * The same move asked to switch its table back to the source ({@code reversing}).
     *
     * @throws IllegalStateException (409) unless it is a done whole-table move whose reverse stream runs
     */
    public MoveRecord reversing(long nowMillis) {
        if (!tableMove()) {
            throw new IllegalStateException(
                    "move " + id + " moves hash buckets: only a whole-table move (\"buckets\": \"table\") is reversed");
        }
        if (checkpoints.containsKey(SOURCE_CLEANUP)) {
            throw new IllegalStateException(
                    "move " + id + " cleaned up its source: the source's rows are deleted, nothing to switch back to");
        }
        if (!state.equals("done")) {
            throw new IllegalStateException("move " + id + " is " + state + ": only a done move is reversed");
        }
        if (checkpoints.containsKey(REVERSE_STOPPED)) {
            throw new IllegalStateException("move " + id + "'s reverse stream stopped ("
                    + checkpoints.get(REVERSE_STOPPED) + "): the source is not in step, it cannot be switched back");
        }
        if (!streamingBack()) {
            throw new IllegalStateException("move " + id + " has no reverse stream");
        }
        return changed("reversing", 0, null, nowMillis, progress, checkpoints, rulesVersion);
    }

    /**
     * The same move asked to delete its source's copy of the table ({@code cleaning_source}); from
     * then on it cannot be reversed.
     *
     * @throws IllegalStateException (409) unless it is a done whole-table move not cleaned up yet
     */
    public MoveRecord cleaningSource(long nowMillis) {
        if (!tableMove()) {
            throw new IllegalStateException("move " + id + " moves hash buckets: their source rows are deleted at"
                    + " the switch, there is no cleanup to ask for");
        }
        if ("done".equals(checkpoints.get(SOURCE_CLEANUP))) {
            throw new IllegalStateException("move " + id + " cleaned up its source already");
        }
        if (!state.equals("done") || !checkpoints.containsKey(REVERSE_FROM)) {
            throw new IllegalStateException("move " + id + " is " + state
                    + ": only a done move's source is cleaned up (the source serves the table otherwise)");
        }
        Map<String, String> next = new java.util.HashMap<>(checkpoints);
        next.put(SOURCE_CLEANUP, "started");
        return changed("cleaning_source", 0, null, nowMillis, progress, next, rulesVersion);
    }

    /** The same move after its source's cleanup: done, not reversible. */
    public MoveRecord sourceCleaned(long nowMillis) {
        Map<String, String> next = new java.util.HashMap<>(checkpoints);
        next.put(SOURCE_CLEANUP, "done");
        return changed("done", 0, null, nowMillis, progress, next, rulesVersion);
    }

    /** The same move switched back to its source by the rules of {@code version}. */
    public MoveRecord reversed(long version, long nowMillis) {
        return changed("reversed", 0, null, nowMillis, progress, checkpoints, version);
    }

    /**
     * The same whole-table move, switched, after {@code why} stopped its job: done again, its table
     * still on the target, with the error shown; when {@code streamStopped} its reverse stream
     * stopped for good (it cannot be reversed).
     */
    public MoveRecord switchedWithError(String why, boolean streamStopped, long nowMillis) {
        Map<String, String> next = new java.util.HashMap<>(checkpoints);
        if (streamStopped) {
            next.put(REVERSE_STOPPED, why);
        }
        return changed("done", 0, why, nowMillis, progress, next, rulesVersion);
    }

    /** Whether the routers hold its tables' statements now. */
    public boolean holding() {
        return active() && holdGeneration > 0;
    }

    /** Whether the rules switched and the source's stale copies are being deleted. */
    public boolean cleaningUp() {
        return state.equals("cleaning_up");
    }

    /** Whether key-routed writes run while the move cleans up (see {@link #KEY_WRITES}). */
    public boolean keyWritesRunDuringCleanup() {
        return "run".equals(checkpoints.get(KEY_WRITES));
    }

    /** The same move, switched by the rules of {@code version}, deleting the source's stale copies. */
    public MoveRecord cleaning(long version, long nowMillis) {
        return changed("cleaning_up", 0, null, nowMillis, progress, checkpoints, version);
    }

    /** The same move in {@code next} state at {@code nowMillis}. */
    public MoveRecord withState(String next, long nowMillis) {
        return changed(next, holdGeneration, error, nowMillis, progress, checkpoints, rulesVersion);
    }

    /** The same move holding its statements for cutover attempt {@code generation} (0: released). */
    public MoveRecord withHold(int generation, long nowMillis) {
        return changed(state, generation, error, nowMillis, progress, checkpoints, rulesVersion);
    }

    /** The same move, failed for {@code why} (its statements released). */
    public MoveRecord failed(String why, long nowMillis) {
        return changed("failed", 0, why, nowMillis, progress, checkpoints, rulesVersion);
    }

    /** The same move with {@code progress} and {@code checkpoints}. */
    public MoveRecord withProgress(
            Map<String, Long> nextProgress, Map<String, String> nextCheckpoints, long nowMillis) {
        return changed(state, holdGeneration, error, nowMillis, nextProgress, nextCheckpoints, rulesVersion);
    }

    /** The same move, done: the rules of {@code version} place its rows on the target. */
    public MoveRecord done(long version, long nowMillis) {
        return changed("done", 0, null, nowMillis, progress, checkpoints, version);
    }

    /** The request's fields as they are, the state's as given. */
    private MoveRecord changed(
            String nextState,
            int nextHold,
            String nextError,
            long nowMillis,
            Map<String, Long> nextProgress,
            Map<String, String> nextCheckpoints,
            long nextRulesVersion) {
        return new MoveRecord(
                id,
                schema,
                tables,
                sources,
                target,
                what,
                copyRowsPerSecond,
                nextState,
                nextHold,
                nextError,
                createdAtMillis,
                nowMillis,
                nextProgress,
                nextCheckpoints,
                nextRulesVersion);
    }

    /** {@code schema} lower-cased, as table names are compared. */
    String schemaKey() {
        return schema.toLowerCase(Locale.ROOT);
    }
}
