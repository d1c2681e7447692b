package io.shardgate.router.move;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.move.ShardEndpoint;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * What a {@link MoveJob} works with: the moves' log, the configuration store it reads the running
 * rules from and publishes the switch to, the shards' addresses and accounts, and its timings.
 *
 * @param rulesOf the rules a configuration's documents give (as the routers read them)
 * @param endpoint the writer of a hostgroup, with the hostgroup's backend account
 * @param chunkRows rows per copy chunk, diff chunk and key batch
 * @param ackTimeout how long a cutover waits for every live router to hold the tables
 * @param lockTimeout how long a cutover waits for the source's write lock (open transactions)
 * @param catchUpTimeout how long a cutover waits for the catch-up under the lock
 * @param attempts cutover attempts before the move fails
 * @param metrics the mover's meters
 */
public record MoveContext(
        MoveLog log,
        RuleStore store,
        Function<ConfigDocuments, RuleSnapshot> rulesOf,
        IntFunction<ShardEndpoint> endpoint,
        int chunkRows,
        Duration ackTimeout,
        Duration lockTimeout,
        Duration catchUpTimeout,
        int attempts,
        MoveMetrics metrics) {}
