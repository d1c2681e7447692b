package io.shardgate.sharding.rule;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The one way every configuration loader (the router's YAML, the sharding rules, the cache section)
 * reports a key it does not know: {@code server.prot: unknown key (did you mean 'port'? known:
 * [admin_port, auth_plugin, ...])}, the known keys sorted, the suggestion the closest known key by
 * edit distance when it is close enough to be a typo.
 */
public final class UnknownKey {
    private UnknownKey() {}

    /**
     * The problem line for {@code key} found under {@code path} ({@code ""} at the top level).
     *
     * @param known the keys accepted there
     */
    public static String problem(String path, String key, Collection<String> known) {
        List<String> sorted = List.copyOf(new TreeSet<>(known));
        String suggestion = suggestion(key, sorted);
        return (path.isEmpty() ? "" : path + ".") + key + ": unknown key ("
                + (suggestion == null ? "" : "did you mean '" + suggestion + "'? ") + "known: " + sorted + ")";
    }

    /**
     * The known key {@code key} is most likely a typo of, or null: the one at the smallest edit
     * distance (insertions, deletions, substitutions, swaps of neighbours), if that is at most 2,
     * or a third of the key's length for longer keys; ties go to the alphabetically first.
     */
    public static String suggestion(String key, Collection<String> known) {
        String lower = key.toLowerCase(java.util.Locale.ROOT);
        int limit = Math.max(2, key.length() / 3);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : new TreeSet<>(known)) {
            int d = distance(lower, candidate.toLowerCase(java.util.Locale.ROOT));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return bestDistance <= limit ? best : null;
    }

    /** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
