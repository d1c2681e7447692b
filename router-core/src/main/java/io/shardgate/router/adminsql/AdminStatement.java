package io.shardgate.router.adminsql;

import java.util.List;
import java.util.Map;

/**
 * One parsed admin statement. Values are {@code String}, {@code Long}, {@code Double} or null
 * (SQL NULL); column and table names are lower case.
 */
sealed interface AdminStatement {
    /** An item of a SELECT list: {@code *}, a column, {@code @@variable}, a literal or a function call. */
    record Item(String expression, Object literal, boolean isLiteral, String alias) {}

    /** {@code SELECT items [FROM table] [WHERE col = value AND ...] [LIMIT n]}. */
    record Select(List<Item> items, String table, Map<String, Object> where, Long limit) implements AdminStatement {}

    /** {@code INSERT INTO table [(columns)] VALUES (...), ...}; columns null: the table's own order. */
    record Insert(String table, List<String> columns, List<List<Object>> rows) implements AdminStatement {}

    /** {@code UPDATE table SET col = value, ... [WHERE ...]}. */
    record Update(String table, Map<String, Object> set, Map<String, Object> where) implements AdminStatement {}

    /** {@code DELETE FROM table [WHERE ...]}. */
    record Delete(String table, Map<String, Object> where) implements AdminStatement {}

    /** {@code LOAD ... TO RUNTIME} (publish the draft) or {@code LOAD ... FROM RUNTIME} (reset it). */
    record Load(boolean toRuntime) implements AdminStatement {}

    /** {@code SHOW TABLES}, {@code SHOW DATABASES}, {@code SHOW VARIABLES ...}, ... */
    record Show(String what) implements AdminStatement {}

    /** What {@code PURGE CACHE} drops. */
    enum PurgeScope {
        ALL,
        SCHEMA,
        TABLE,
        RULE
    }

    /**
     * {@code PURGE CACHE [ALL | SCHEMA s | TABLE s.t | RULE n]}: drops cached results; {@code schema}
     * for SCHEMA and TABLE, {@code table} for TABLE, {@code rule} for RULE, the others null.
     */
    record Purge(PurgeScope scope, String schema, String table, Integer rule) implements AdminStatement {}

    /** Statements clients send that change nothing here: SET, USE, SAVE ... TO DISK, BEGIN, COMMIT. */
    record Accepted(String info) implements AdminStatement {}
}
