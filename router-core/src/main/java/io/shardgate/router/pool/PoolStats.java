package io.shardgate.router.pool;

/**
 * A snapshot of one backend pool's counters.
 *
 * @param pool which hostgroup and server
 * @param open connections open or being opened
 * @param peakOpen the most connections ever open at once (the backend connections actually used)
 * @param idle connections waiting in the pool
 * @param waiting statements waiting for a connection
 * @param created connections opened since start
 * @param timeouts borrowers that gave up after {@code acquire_timeout_millis}
 * @param connectFailures connection attempts that failed
 */
public record PoolStats(
        String pool,
        int open,
        int peakOpen,
        int idle,
        int waiting,
        long created,
        long timeouts,
        long connectFailures) {}
