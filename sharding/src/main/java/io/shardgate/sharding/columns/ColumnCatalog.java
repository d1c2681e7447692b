package io.shardgate.sharding.columns;

import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.KeyCollation;
import io.shardgate.sharding.rule.KeyType;
import io.shardgate.sharding.rule.TableRule;
import java.util.Locale;
import java.util.Map;

/**
 * One immutable version of the column lists the router tracks for the tables of its logical schemas
 * (schema tracking): learned from the shards' {@code information_schema.COLUMNS}, replaced whole
 * on each refresh. A plan that read it records {@link #version()}, so a new version re-plans it.
 *
 * @param tables by {@link #key(String, String)}
 */
public record ColumnCatalog(long version, Map<String, TableColumns> tables) {
    /** Nothing tracked (schema tracking off, or before the first refresh). */
    public static final ColumnCatalog EMPTY = new ColumnCatalog(0, Map.of());

    public ColumnCatalog {
        tables = Map.copyOf(tables);
    }

    /** What is known of {@code schema.table} (names compared case-insensitively, as table rules do). */
    public TableColumns lookup(String schema, String table) {
        TableColumns found = tables.get(key(schema, table));
        return found != null
                ? found
                : new TableColumns.Untracked(
                        "the router has not learned the columns of " + schema + "." + table + " yet (schema tracking)");
    }

    /**
     * Why {@code rule}'s string sharding key cannot be routed by its hash, or null: the shards report
     * a collation for the key column under which values the rule hashes apart are equal ({@code 'a'}
     * and {@code 'A'} under a case-insensitive collation with {@code key_collation: binary}): such rows
     * may live on different shards, so a lookup by key could miss rows and a unique key could be
     * duplicated. Unknown columns (not tracked yet) are taken as the rule says.
     */
    public String keyCollationConflict(String schema, TableRule rule) {
        if (!(rule.strategy() instanceof HashStrategy hash)
                || hash.keyType() != KeyType.STRING
                || !(lookup(schema, rule.name()) instanceof TableColumns.Known known)) {
            return null;
        }
        String collation = known.collationOf(hash.column());
        if (hash.keyCollation().fitsColumn(collation)) {
            return null;
        }
        return "table " + schema + "." + rule.name() + " is hashed by " + hash.column() + " with key_collation: "
                + hash.keyCollation().ruleName() + ", but the column's collation on the shards is " + collation
                + ", under which keys hashed apart compare equal (rows could be missed or duplicated)."
                + " Set the rule's key_collation to match (" + String.join(", ", KeyCollation.ruleNames())
                + "; existing rows must then be moved) or give the column a binary collation";
    }

    /** The map key of a table: {@code schema.table}, lower case. */
    public static String key(String schema, String table) {
        return (schema + "." + table).toLowerCase(Locale.ROOT);
    }
}
