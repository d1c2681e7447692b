package io.shardgate.router.move;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
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

    /** The states, in order; the last three end a move. */
    public static final List<String> STATES = List.of(
            "copying", "catching_up", "verifying", "cutting_over", "cleaning_up", "done", "failed", "cancelled");

    /**
     * The checkpoint saying whether key-routed writes run during the cleanup ({@code "run"}: every
     * unique index of every moving table holds the sharding column, so such a write can never meet a
     * stale copy; anything else: they wait with the multi-shard statements).
     */
    public static final String KEY_WRITES = "cleanup.key_writes";

    private static final Set<String> ENDED = Set.of("done", "failed", "cancelled");

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

    /** Whether {@code state} is one a move ends in: done, failed or cancelled. */
    public static boolean ended(String state) {
        return ENDED.contains(state);
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
