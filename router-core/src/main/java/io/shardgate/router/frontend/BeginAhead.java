package io.shardgate.router.frontend;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Whether a hostgroup's BEGIN may be sent in the same write as the transaction's first statement
 * there (one round trip instead of two): only when it cannot fail on a connection with no
 * transaction open. The statement runs whether the BEGIN worked or not, so a BEGIN that could be
 * refused ({@code READ WRITE} on a read-only server, {@code WITH CONSISTENT SNAPSHOT} options, an
 * XA START, savepoints to set again) keeps its own round trip.
 */
final class BeginAhead {
    private static final Pattern PLAIN = Pattern.compile(
            "\\s*(?:BEGIN(?:\\s+WORK)?|START\\s+TRANSACTION(?:\\s+READ\\s+ONLY)?)\\s*;?\\s*", Pattern.CASE_INSENSITIVE);

    private BeginAhead() {}

    /** True when {@code steps} (a hostgroup's begin steps) are one plain BEGIN. */
    static boolean allowed(List<String> steps) {
        return steps != null && steps.size() == 1 && PLAIN.matcher(steps.get(0)).matches();
    }
}
