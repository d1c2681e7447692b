package io.shardgate.router.adminsql;

import io.shardgate.router.adminsql.AdminSqlLexer.Kind;
import io.shardgate.router.adminsql.AdminSqlLexer.Token;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The admin endpoint's SQL: a small explicit grammar rather than Calcite. The statements are a
 * handful of fixed shapes over our own tables (ProxySQL's admin is used the same way), plus what
 * client libraries send on connect ({@code SELECT @@x AS y}, {@code SET NAMES}), which Calcite's
 * parsers refuse or would still leave us an expression tree to interpret. Anything else is a 1064
 * naming the token where the grammar stopped.
 */
final class AdminSqlParser {
    private final List<Token> tokens;
    private int at;

    private AdminSqlParser(String sql) {
        this.tokens = AdminSqlLexer.tokens(sql);
    }

    static AdminStatement parse(String sql) {
        AdminSqlParser parser = new AdminSqlParser(sql);
        AdminStatement statement = parser.statement();
        if (parser.peek().kind() != Kind.END) {
            throw parser.unexpected();
        }
        return statement;
    }

    private AdminStatement statement() {
        Token first = next();
        String word = first.kind() == Kind.WORD ? first.text().toUpperCase(Locale.ROOT) : "";
        return switch (word) {
            case "SELECT" -> select();
            case "INSERT", "REPLACE" -> insert();
            case "UPDATE" -> update();
            case "DELETE" -> delete();
            case "LOAD" -> load();
            case "SHOW" -> show();
            case "PURGE" -> purge();
            case "SAVE" -> {
                skipRest();
                yield new AdminStatement.Accepted("ZooKeeper keeps every version: nothing to save");
            }
            case "SET", "USE", "BEGIN", "COMMIT", "ROLLBACK", "START" -> {
                skipRest();
                yield new AdminStatement.Accepted("");
            }
            default ->
                throw new AdminSqlException(
                        1064,
                        "admin statements are SELECT, INSERT, UPDATE, DELETE, LOAD ... TO RUNTIME, LOAD ... FROM"
                                + " RUNTIME, PURGE CACHE and SHOW; not '" + first.text() + "'");
        };
    }

    private AdminStatement select() {
        List<AdminStatement.Item> items = new ArrayList<>();
        do {
            items.add(item());
        } while (accept(","));
        String table = null;
        Map<String, Object> where = Map.of();
        Long limit = null;
        if (accept("FROM")) {
            table = name();
            where = where();
        }
        if (accept("LIMIT")) {
            Object n = value();
            if (!(n instanceof Long l)) {
                throw new AdminSqlException(1064, "LIMIT takes a number");
            }
            limit = l;
        }
        return new AdminStatement.Select(items, table, where, limit);
    }

    private AdminStatement.Item item() {
        Token t = peek();
        AdminStatement.Item item;
        if (t.is("*")) {
            next();
            item = new AdminStatement.Item("*", null, false, null);
        } else if (t.kind() == Kind.STRING || t.kind() == Kind.NUMBER || t.is("NULL")) {
            Object v = value();
            item = new AdminStatement.Item(t.text(), v, true, null);
        } else {
            String expression = name();
            if (accept("(")) {
                expect(")"); // functions without arguments: DATABASE(), VERSION(), USER()...
                expression = expression + "()";
            }
            item = new AdminStatement.Item(expression, null, false, null);
        }
        if (accept("AS")
                || peek().kind() == Kind.WORD && !isKeyword(peek())
                || peek().kind() == Kind.QUOTED_IDENTIFIER
                || (peek().kind() == Kind.STRING && item.isLiteral() == false)) {
            Token alias = next();
            return new AdminStatement.Item(item.expression(), item.literal(), item.isLiteral(), alias.text());
        }
        return item;
    }

    private static boolean isKeyword(Token t) {
        return t.is("FROM") || t.is("WHERE") || t.is("LIMIT");
    }

    private AdminStatement insert() {
        accept("INTO");
        String table = name();
        List<String> columns = null;
        if (accept("(")) {
            columns = new ArrayList<>();
            do {
                columns.add(name());
            } while (accept(","));
            expect(")");
        }
        if (!accept("VALUES") && !accept("VALUE")) {
            throw unexpected();
        }
        List<List<Object>> rows = new ArrayList<>();
        do {
            expect("(");
            List<Object> row = new ArrayList<>();
            do {
                row.add(value());
            } while (accept(","));
            expect(")");
            rows.add(row);
        } while (accept(","));
        return new AdminStatement.Insert(table, columns, rows);
    }

    private AdminStatement update() {
        String table = name();
        if (!accept("SET")) {
            throw unexpected();
        }
        Map<String, Object> set = new LinkedHashMap<>();
        do {
            String column = name();
            expect("=");
            set.put(column, value());
        } while (accept(","));
        return new AdminStatement.Update(table, set, where());
    }

    private AdminStatement delete() {
        if (!accept("FROM")) {
            throw unexpected();
        }
        return new AdminStatement.Delete(name(), where());
    }

    /** {@code LOAD <words> TO RUNTIME | FROM RUNTIME|MEMORY|DISK}: the words name a ProxySQL layer; all sections go. */
    private AdminStatement load() {
        while (peek().kind() == Kind.WORD && !peek().is("TO") && !peek().is("FROM")) {
            next();
        }
        boolean to = accept("TO");
        if (!to && !accept("FROM")) {
            throw unexpected();
        }
        Token where = next();
        if (to && where.is("RUNTIME")) {
            return new AdminStatement.Load(true);
        }
        if (!to && (where.is("RUNTIME") || where.is("DISK") || where.is("MEMORY"))) {
            return new AdminStatement.Load(false);
        }
        throw new AdminSqlException(1064, "LOAD ... TO RUNTIME publishes the draft; LOAD ... FROM RUNTIME resets it");
    }

    /** {@code PURGE CACHE [ALL | SCHEMA s | TABLE s.t | RULE n]}; no scope means ALL. */
    private AdminStatement purge() {
        if (!accept("CACHE")) {
            throw new AdminSqlException(
                    1064, "PURGE CACHE [ALL | SCHEMA s | TABLE schema.table | RULE n] is the admin's only PURGE");
        }
        if (accept("SCHEMA")) {
            return new AdminStatement.Purge(AdminStatement.PurgeScope.SCHEMA, identifier(), null, null);
        }
        if (accept("TABLE")) {
            String qualified = identifier();
            if (accept(".")) {
                qualified = qualified + "." + identifier();
            }
            int dot = qualified.indexOf('.');
            if (dot <= 0 || dot == qualified.length() - 1) {
                throw new AdminSqlException(1064, "PURGE CACHE TABLE takes schema.table, not '" + qualified + "'");
            }
            return new AdminStatement.Purge(
                    AdminStatement.PurgeScope.TABLE, qualified.substring(0, dot), qualified.substring(dot + 1), null);
        }
        if (accept("RULE")) {
            Object n = value();
            if (!(n instanceof Long rule) || rule < 1 || rule > Integer.MAX_VALUE) {
                throw new AdminSqlException(1064, "PURGE CACHE RULE takes a rule_id (1 = the first query rule)");
            }
            return new AdminStatement.Purge(AdminStatement.PurgeScope.RULE, null, null, rule.intValue());
        }
        accept("ALL");
        return new AdminStatement.Purge(AdminStatement.PurgeScope.ALL, null, null, null);
    }

    /** A schema or table name as written; the cache folds case itself. */
    private String identifier() {
        Token t = next();
        if (t.kind() != Kind.WORD && t.kind() != Kind.QUOTED_IDENTIFIER && t.kind() != Kind.STRING) {
            throw unexpected(t);
        }
        return t.text();
    }

    private AdminStatement show() {
        StringBuilder what = new StringBuilder();
        while (peek().kind() != Kind.END) {
            what.append(what.length() == 0 ? "" : " ").append(next().text());
        }
        return new AdminStatement.Show(what.toString().toUpperCase(Locale.ROOT));
    }

    private Map<String, Object> where() {
        if (!accept("WHERE")) {
            return Map.of();
        }
        Map<String, Object> where = new LinkedHashMap<>();
        do {
            String column = name();
            expect("=");
            where.put(column, value());
        } while (accept("AND"));
        return where;
    }

    private String name() {
        Token t = next();
        if (t.kind() != Kind.WORD && t.kind() != Kind.QUOTED_IDENTIFIER) {
            throw unexpected(t);
        }
        String name = t.text().toLowerCase(Locale.ROOT);
        // main.users, stats.stats_pools: ProxySQL's schema prefixes are accepted and ignored
        int dot = name.indexOf('.');
        return dot > 0 && !name.startsWith("@") ? name.substring(dot + 1) : name;
    }

    private Object value() {
        Token t = next();
        return switch (t.kind()) {
            case STRING -> t.text();
            case NUMBER -> t.text().contains(".") ? (Object) Double.valueOf(t.text()) : (Object) Long.valueOf(t.text());
            case WORD -> {
                if (t.is("NULL")) {
                    yield null;
                }
                if (t.is("TRUE") || t.is("FALSE")) {
                    yield t.is("TRUE") ? 1L : 0L;
                }
                throw unexpected(t);
            }
            default -> throw unexpected(t);
        };
    }

    private Token peek() {
        return tokens.get(at);
    }

    private Token next() {
        Token t = tokens.get(at);
        if (t.kind() != Kind.END) {
            at++;
        }
        return t;
    }

    private boolean accept(String word) {
        if (peek().is(word)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(String word) {
        if (!accept(word)) {
            throw unexpected();
        }
    }

    private void skipRest() {
        at = tokens.size() - 1;
    }

    private AdminSqlException unexpected() {
        return unexpected(peek());
    }

    private static AdminSqlException unexpected(Token t) {
        return new AdminSqlException(
                1064,
                "You have an error in your admin SQL syntax near '"
                        + (t.kind() == Kind.END ? "end of statement" : t.text()) + "'");
    }
}
