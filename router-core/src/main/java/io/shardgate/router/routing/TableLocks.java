package io.shardgate.router.routing;

import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LOCK TABLES over sharded and broadcast tables: each hostgroup holding a named table gets a LOCK
 * TABLES naming the tables it holds (a shard has no copy of a table of another hostgroup, and
 * MySQL's LOCK TABLES fails on a missing table). Every shard of a table is then locked on the
 * session's connection there, and those connections stay pinned until UNLOCK TABLES, which goes to
 * every hostgroup the session holds a connection to. Not a cross-shard atomic lock: the shards are
 * locked one after the other. A pure function of the statement text and the rules.
 */
public final class TableLocks {
    private static final Pattern LOCK = Pattern.compile("^LOCK TABLES? (.+)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern ITEM =
            Pattern.compile("^((?:`(?:[^`]|``)+`|[^\\s`.]+)(?:\\.(?:`(?:[^`]|``)+`|[^\\s`.]+))?)\\s.+$");

    private TableLocks() {}

    /**
     * The LOCK TABLES statement to run on each hostgroup, or null when {@code digestText} is not a
     * LOCK TABLES whose items this reads (the caller then runs it on the home hostgroup as before).
     */
    public static Map<Integer, String> byHostgroup(String digestText, RuleSnapshot rules, String schema) {
        Matcher lock = LOCK.matcher(digestText);
        if (!lock.matches()) {
            return null;
        }
        Map<Integer, List<String>> items = new TreeMap<>();
        for (String item : split(lock.group(1))) {
            Matcher m = ITEM.matcher(item);
            if (!m.matches()) {
                return null;
            }
            for (int hostgroup : hostgroupsOf(m.group(1), rules, schema)) {
                items.computeIfAbsent(hostgroup, h -> new ArrayList<>()).add(item);
            }
        }
        Map<Integer, String> out = new TreeMap<>();
        items.forEach((hostgroup, list) -> out.put(hostgroup, "LOCK TABLES " + String.join(", ", list)));
        return out;
    }

    private static List<Integer> hostgroupsOf(String qualified, RuleSnapshot rules, String schema) {
        List<String> parts = new ArrayList<>();
        for (String part : qualified.split("\\.(?=(?:[^`]*`[^`]*`)*[^`]*$)")) {
            parts.add(
                    part.startsWith("`") ? part.substring(1, part.length() - 1).replace("``", "`") : part);
        }
        String db = parts.size() == 2 ? parts.get(0) : schema;
        String table = parts.get(parts.size() - 1);
        SchemaRule rule = rules.schema(db);
        if (rule == null) {
            return List.of(rules.homeOf(schema));
        }
        TableRule t = rule.resolve(table);
        return t.strategy().hostgroups();
    }

    /** The items of a lock list, split at top-level commas. */
    private static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        int start = 0;
        boolean quoted = false;
        for (int i = 0; i < list.length(); i++) {
            char c = list.charAt(i);
            if (c == '`') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                out.add(list.substring(start, i).trim());
                start = i + 1;
            }
        }
        out.add(list.substring(start).trim());
        return out;
    }
}
