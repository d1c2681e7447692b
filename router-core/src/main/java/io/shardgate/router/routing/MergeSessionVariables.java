package io.shardgate.router.routing;

import io.shardgate.sharding.plan.MergeSpec;
import java.util.Locale;
import java.util.Map;

/**
 * Session variables that change the answer of a SELECT the router merges from several shards.
 * Each shard applies the session's settings to its own part (the router replays them there), but
 * some act on the whole result, which only the merge sees:
 * <ul>
 *   <li>{@code sql_select_limit} caps the rows of the whole statement; on each shard it would cap
 *       that shard's rows and groups, and the merge would return up to one cap per shard;
 *   <li>{@code div_precision_increment} sets the scale of AVG and of divisions, which the merge
 *       computes itself at MySQL's default (4);
 *   <li>{@code max_sort_length} makes ORDER BY, GROUP BY and DISTINCT compare only a prefix of long
 *       strings; the merge compares whole values.
 * </ul>
 * With any of them set to other than its default, such a SELECT is refused (1235) rather than
 * merged with the default's semantics. Statements on one shard run there with the setting, as
 * MySQL would run them.
 */
public final class MergeSessionVariables {
    private MergeSessionVariables() {}

    /**
     * Why a SELECT with {@code merge} cannot be merged under the session's {@code fragments} (the
     * replayed assignments, name to {@code "name = value"}), or null when it can.
     */
    public static String refusal(Map<String, String> fragments, MergeSpec merge) {
        if (fragments.isEmpty()) {
            return null;
        }
        if (!isDefault(fragments, "sql_select_limit", "18446744073709551615")) {
            return "sql_select_limit other than DEFAULT for a SELECT on several shards (each shard would apply it)";
        }
        boolean divides = !merge.computed().isEmpty()
                || merge.aggregates().stream()
                        .anyMatch(a -> a.function() == MergeSpec.Function.AVG
                                || a.function() == MergeSpec.Function.AVG_DISTINCT);
        if (divides && !isDefault(fragments, "div_precision_increment", "4")) {
            return "div_precision_increment other than DEFAULT for AVG or arithmetic merged from several shards";
        }
        boolean compares = !merge.orderBy().isEmpty()
                || !merge.groupBy().isEmpty()
                || merge.distinct()
                || !merge.aggregates().isEmpty();
        if (compares && !isDefault(fragments, "max_sort_length", "1024")) {
            return "max_sort_length other than DEFAULT for ORDER BY, GROUP BY, DISTINCT or aggregates merged from"
                    + " several shards";
        }
        return null;
    }

    /** Whether the session's {@code name} is unset, DEFAULT or {@code defaultValue}; any expression counts as set. */
    private static boolean isDefault(Map<String, String> fragments, String name, String defaultValue) {
        String fragment = fragments.get(name);
        if (fragment == null) {
            return true;
        }
        int equals = fragment.indexOf('=');
        String value = fragment.substring(equals + 1).trim();
        if (value.endsWith(";")) {
            value = value.substring(0, value.length() - 1).trim();
        }
        return value.toUpperCase(Locale.ROOT).equals("DEFAULT") || value.equals(defaultValue);
    }
}
