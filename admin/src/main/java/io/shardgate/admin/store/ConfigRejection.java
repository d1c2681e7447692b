package io.shardgate.admin.store;

import java.time.Instant;
import java.util.List;

/**
 * A configuration that was refused, and why.
 *
 * @param version the version number it had or would have had
 * @param source {@link #PUBLISH} when a publisher refused to write it, {@link #WATCH} when a router
 *     refused to run a version it found in ZooKeeper
 * @param problems what is wrong, one sentence each
 * @param at when it was refused
 */
public record ConfigRejection(long version, String source, List<String> problems, Instant at) {
    public static final String PUBLISH = "publish";
    public static final String WATCH = "watch";

    public ConfigRejection {
        problems = List.copyOf(problems);
    }
}
