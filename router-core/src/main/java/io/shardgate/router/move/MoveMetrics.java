package io.shardgate.router.move;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Meters of online moves (docs/moves.md): what this router's mover copied and caught up, its
 * cutovers (held how long, attempts let go), and on every router the statements waiting for a
 * cutover now.
 */
public final class MoveMetrics {
    private final Counter rowsCopied;
    private final Counter keysCaughtUp;
    private final Counter keysStreamedBack;
    private final Counter cutoversDone;
    private final Counter cutoversLetGo;
    private final Timer hold;
    private final Timer cleanup;

    public MoveMetrics(MeterRegistry registry, MoveHolds holds) {
        rowsCopied = Counter.builder("shardgate.moves.rows_copied")
                .description("moving rows the copy phase wrote on targets (this router's mover)")
                .register(registry);
        keysCaughtUp = Counter.builder("shardgate.moves.keys_caught_up")
                .description("changed keys the catch-up refreshed on targets (this router's mover)")
                .register(registry);
        keysStreamedBack = Counter.builder("shardgate.moves.keys_streamed_back")
                .description("changed keys the reverse stream of done whole-table moves refreshed on their sources"
                        + " (this router's mover)")
                .register(registry);
        cutoversDone = Counter.builder("shardgate.moves.cutovers")
                .tag("outcome", "switched")
                .description("cutover attempts (switched: the move's rows are on the target now)")
                .register(registry);
        cutoversLetGo = Counter.builder("shardgate.moves.cutovers")
                .tag("outcome", "let_go")
                .description("cutover attempts (let go: acknowledgements, lock or catch-up not in time)")
                .register(registry);
        hold = Timer.builder("shardgate.moves.hold")
                .description("how long a switched cutover held the moving tables' statements")
                .register(registry);
        cleanup = Timer.builder("shardgate.moves.cleanup")
                .description("how long a switched move's cleanup held the statements that could reach the source's"
                        + " stale copies (multi-shard ones, those not routed by the key)")
                .register(registry);
        Timer waits = Timer.builder("shardgate.moves.statement_wait")
                .description("how long each statement that waited for a move's cutover or cleanup waited, on this"
                        + " router (until it ran or failed)")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        holds.reportWaitsTo(nanos -> waits.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS));
        Gauge.builder("shardgate.moves.held_statements", holds, MoveHolds::waitingCount)
                .description("statements waiting in this router for a cutover now")
                .register(registry);
    }

    void copied(long rows) {
        rowsCopied.increment(rows);
    }

    void caughtUp(long keys) {
        keysCaughtUp.increment(keys);
    }

    void streamedBack(long keys) {
        keysStreamedBack.increment(keys);
    }

    void switched(Duration held) {
        cutoversDone.increment();
        hold.record(held);
    }

    void cleanedUp(Duration held) {
        cleanup.record(held);
    }

    void letGo() {
        cutoversLetGo.increment();
    }
}
