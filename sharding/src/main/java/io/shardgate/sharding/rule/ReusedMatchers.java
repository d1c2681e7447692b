package io.shardgate.sharding.rule;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@link Matcher} per pattern and thread, reset for each input: query rules match every
 * statement's digest, and a new Matcher per statement and rule (about 130 bytes) was most of what
 * a plan-cache hit allocated beyond the digest. Patterns of replaced rule versions are weakly held.
 */
final class ReusedMatchers {
    private static final ThreadLocal<Map<Pattern, Matcher>> MATCHERS = ThreadLocal.withInitial(WeakHashMap::new);

    private ReusedMatchers() {}

    /** {@code pattern.matcher(input).find()}, with this thread's matcher of {@code pattern}. */
    static boolean find(Pattern pattern, CharSequence input) {
        Matcher matcher = MATCHERS.get().computeIfAbsent(pattern, p -> p.matcher(""));
        try {
            return matcher.reset(input).find();
        } finally {
            matcher.reset(""); // holds no statement text between calls
        }
    }
}
