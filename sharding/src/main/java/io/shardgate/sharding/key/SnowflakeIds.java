package io.shardgate.sharding.key;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Snowflake-style ids: 1 sign bit (always 0, so ids are positive BIGINTs), 41 bits of milliseconds
 * since 2024-01-01T00:00:00Z (about 69 years), 10 bits of router node id ({@code server.node_id},
 * 0..1023, unique per router of a cluster) and a 12-bit sequence within the millisecond.
 *
 * <p>Design. Ids are unique because no two routers share a node id and one router never reuses a
 * (millisecond, sequence) pair: the last pair handed out is one atomic long, advanced by CAS, so
 * every event loop may call {@link #next} without a lock. The generator never waits (it runs on
 * Netty event loops): when the wall clock goes backwards it keeps counting on the last millisecond
 * it used, and when a millisecond's 4096 sequence numbers are used up it moves on to the next
 * millisecond before the clock does. Either way the ids stay unique and increasing; they run at
 * most a few milliseconds ahead of the clock, which a restart (seconds) more than covers.
 */
public final class SnowflakeIds implements KeyGenerator {
    /** 2024-01-01T00:00:00Z: ids start small and last until 2093. */
    public static final long EPOCH_MILLIS =
            Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();

    public static final int NODE_BITS = 10;
    public static final int SEQUENCE_BITS = 12;
    public static final int MAX_NODE_ID = (1 << NODE_BITS) - 1;
    private static final int SEQUENCE_SIZE = 1 << SEQUENCE_BITS;
    private static final long MAX_MILLIS = (1L << (63 - NODE_BITS - SEQUENCE_BITS)) - 1;

    private final long node;
    private final LongSupplier clock;
    /** The last (millisecond << SEQUENCE_BITS | sequence) handed out; -1 before the first. */
    private final AtomicLong last = new AtomicLong(-1);

    /** Ids of router {@code nodeId} stamped with the system clock. */
    public SnowflakeIds(int nodeId) {
        this(nodeId, System::currentTimeMillis);
    }

    /** {@code clock}: milliseconds since the Unix epoch (tests inject one). */
    public SnowflakeIds(int nodeId, LongSupplier clock) {
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new IllegalArgumentException("node id must be 0.." + MAX_NODE_ID + ", was " + nodeId);
        }
        this.node = nodeId;
        this.clock = clock;
    }

    @Override
    public long[] next(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be positive, was " + count);
        }
        long[] ids = new long[count];
        int done = 0;
        while (done < count) {
            int block = Math.min(count - done, SEQUENCE_SIZE);
            long first = reserve(block);
            for (int i = 0; i < block; i++) {
                ids[done++] = first + i;
            }
        }
        return ids;
    }

    /** Reserves {@code n} (1..4096) consecutive sequence numbers of one millisecond; returns the first id. */
    private long reserve(int n) {
        while (true) {
            long previous = last.get();
            long now = Math.max(0, clock.getAsLong() - EPOCH_MILLIS);
            long millis = previous >>> SEQUENCE_BITS;
            long sequence = (previous & (SEQUENCE_SIZE - 1)) + 1;
            if (previous < 0 || now > millis) {
                millis = now;
                sequence = 0;
            } else if (sequence + n > SEQUENCE_SIZE) {
                // this millisecond is used up (or the clock went back): take the next one now
                millis++;
                sequence = 0;
            }
            if (millis > MAX_MILLIS) {
                throw new IllegalStateException("snowflake ids exhausted: the clock is past 2093");
            }
            long reserved = (millis << SEQUENCE_BITS) | (sequence + n - 1);
            if (last.compareAndSet(previous, reserved)) {
                return (millis << (NODE_BITS + SEQUENCE_BITS)) | (node << SEQUENCE_BITS) | sequence;
            }
        }
    }

    /** The node id bits of an id. */
    public static int nodeOf(long id) {
        return (int) ((id >>> SEQUENCE_BITS) & MAX_NODE_ID);
    }

    /** The wall-clock milliseconds (Unix epoch) an id was stamped with. */
    public static long millisOf(long id) {
        return (id >>> (NODE_BITS + SEQUENCE_BITS)) + EPOCH_MILLIS;
    }
}
