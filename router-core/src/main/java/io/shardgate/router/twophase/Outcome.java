package io.shardgate.router.twophase;

import java.util.Locale;

/** What the decision log holds for a distributed transaction. */
public enum Outcome {
    /** Every shard prepared and the commit was decided: every branch must commit. */
    COMMIT,
    /** The transaction was abandoned (a failed PREPARE, or a resolver found its owner gone). */
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
