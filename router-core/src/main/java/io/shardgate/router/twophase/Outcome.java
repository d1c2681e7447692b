package io.shardgate.router.twophase;

import java.util.Locale;

/** A distributed transaction's decision, as its row on the metadata manager holds it ({@link DecisionTable}). */
public enum Outcome {
    /** Every shard prepared and the commit was decided: every branch must commit. */
    COMMIT,
    /** The transaction was abandoned: a resolver fenced it, or an operator rolled it back. */
    ROLLBACK;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The outcome named {@code text}, or null. */
    public static Outcome named(String text) {
        for (Outcome o : values()) {
            if (o.text().equals(text)) {
                return o;
            }
        }
        return null;
    }
}
