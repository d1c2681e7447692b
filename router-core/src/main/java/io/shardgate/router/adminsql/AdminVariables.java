package io.shardgate.router.adminsql;

import io.shardgate.router.net.TextResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server variables the admin endpoint reports, so that client libraries' connection set-up
 * ({@code SELECT @@max_allowed_packet ...}, the mariadb CLI's {@code @@version_comment}) gets
 * sensible answers; and {@code SELECT} without {@code FROM} over them, literals and a few
 * functions.
 */
final class AdminVariables {
    private static final Pattern LIKE = Pattern.compile("LIKE\\s+'?([^']*)'?", Pattern.CASE_INSENSITIVE);

    private final Map<String, Object> values = new LinkedHashMap<>();

    AdminVariables(String serverVersion) {
        values.put("auto_increment_increment", 1L);
        values.put("autocommit", 1L);
        values.put("character_set_client", "utf8mb4");
        values.put("character_set_connection", "utf8mb4");
        values.put("character_set_results", "utf8mb4");
        values.put("character_set_server", "utf8mb4");
        values.put("collation_connection", "utf8mb4_general_ci");
        values.put("collation_server", "utf8mb4_general_ci");
        values.put("init_connect", "");
        values.put("interactive_timeout", 28800L);
        values.put("license", "Apache-2.0");
        values.put("lower_case_table_names", 0L);
        values.put("max_allowed_packet", 16_777_216L);
        values.put("net_buffer_length", 16_384L);
        values.put("net_write_timeout", 60L);
        values.put("performance_schema", 0L);
        values.put("query_cache_size", 0L);
        values.put("query_cache_type", "OFF");
        values.put("sql_mode", "");
        values.put("system_time_zone", "UTC");
        values.put("time_zone", "SYSTEM");
        values.put("transaction_isolation", "REPEATABLE-READ");
        values.put("tx_isolation", "REPEATABLE-READ");
        values.put("transaction_read_only", 0L);
        values.put("tx_read_only", 0L);
        values.put("version", serverVersion);
        values.put("version_comment", "Shardgate admin");
        values.put("wait_timeout", 28800L);
    }

    /** {@code SELECT} of variables, literals and functions: one row. */
    AdminResult select(List<AdminStatement.Item> items, String user) {
        List<String> names = new ArrayList<>();
        List<Object> row = new ArrayList<>();
        for (AdminStatement.Item item : items) {
            names.add(item.alias() != null ? item.alias() : item.expression());
            row.add(item.isLiteral() ? item.literal() : evaluate(item.expression(), user));
        }
        List<List<Object>> rows = List.of(row);
        return new AdminResult.Rows(AdminCatalog.typed(names, rows), rows);
    }

    private Object evaluate(String expression, String user) {
        String e = expression.toLowerCase(Locale.ROOT);
        if (e.startsWith("@@")) {
            String name = e.substring(2).replaceFirst("^(session|global|local)\\.", "");
            return values.get(name);
        }
        return switch (e) {
            case "database()", "schema()" -> "main";
            case "version()" -> values.get("version");
            case "user()", "current_user()", "session_user()", "system_user()" -> user;
            case "now()", "current_timestamp()" ->
                java.time.LocalDateTime.now().withNano(0).toString().replace('T', ' ');
            default -> throw new AdminSqlException(1054, "Unknown column '" + expression + "' in 'field list'");
        };
    }

    /** {@code SHOW [SESSION|GLOBAL] VARIABLES [LIKE 'pattern']}. */
    AdminResult show(String what) {
        Matcher like = LIKE.matcher(what);
        Pattern filter = like.find()
                ? Pattern.compile(like.group(1)
                        .toLowerCase(Locale.ROOT)
                        .replace("%", ".*")
                        .replace("_", "."))
                : null;
        List<List<Object>> rows = new ArrayList<>();
        values.forEach((name, value) -> {
            if (filter == null || filter.matcher(name).matches()) {
                rows.add(List.of(name, String.valueOf(value)));
            }
        });
        return new AdminResult.Rows(
                List.of(TextResultSet.Column.text("Variable_name"), TextResultSet.Column.text("Value")), rows);
    }
}
