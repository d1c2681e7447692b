package io.shardgate.sharding.rule;

import java.util.Locale;

/**
 * How a schema's writes on several shards commit: {@link #BEST_EFFORT} commits each shard in turn
 * (a crash or failed COMMIT between them leaves part of the transaction committed), {@link
 * #TWO_PHASE} runs XA on the shards, makes the commit decision durable, then commits (see
 * docs/transactions.md). A transaction that wrote on one shard commits the same way in both.
 */
public enum TransactionMode {
    BEST_EFFORT,
    TWO_PHASE;

    /** The name in the rules ({@code best_effort}, {@code two_phase}). */
    public String ruleName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode named {@code text} in the rules (case-insensitive), or null for an unknown name. */
    public static TransactionMode named(String text) {
        for (TransactionMode mode : values()) {
            if (mode.ruleName().equalsIgnoreCase(text)) {
                return mode;
            }
        }
        return null;
    }
}
