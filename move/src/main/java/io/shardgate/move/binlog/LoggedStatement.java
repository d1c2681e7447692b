package io.shardgate.move.binlog;

import io.shardgate.move.TableShape;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A statement the binary log holds as text (a QUERY event): transaction control, or a statement
 * logged as written, which in a row-format log is DDL (ALTER, DROP, RENAME, TRUNCATE, CREATE...),
 * an account statement, or a statement of a session that switched to statement format. The catch-up
 * learns rows only from row events, so any such statement that names a watched table is a fault:
 * the router refuses DDL on moving tables, and rows changed by a logged statement cannot be known.
 *
 * <p>The check is by tokens and errs on the side of a match: identifiers are compared without case,
 * comments are read as text, only single-quoted strings are skipped. A false match stops a move with
 * a clear message; a missed one would lose changes.
 */
final class LoggedStatement {

    private LoggedStatement() {}

    /** The kind of transaction-control statement {@code sql} is, or {@code OTHER}. */
    enum Control {
        BEGIN,
        COMMIT,
        ROLLBACK,
        /** SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT, XA START/END: inside a transaction, no rows. */
        WITHIN,
        /** XA COMMIT or XA ROLLBACK of a prepared transaction: a group of its own. */
        XA_END_OF_PREPARED,
        OTHER
    }

    static Control control(String sql) {
        List<String> words = words(sql, 3);
        if (words.isEmpty()) {
            return Control.OTHER;
        }
        String first = words.get(0);
        String second = words.size() > 1 ? words.get(1) : "";
        return switch (first) {
            case "BEGIN" -> Control.BEGIN;
            case "COMMIT" -> Control.COMMIT;
            case "ROLLBACK" -> second.equals("TO") ? Control.WITHIN : Control.ROLLBACK;
            case "SAVEPOINT" -> Control.WITHIN;
            case "RELEASE" -> second.equals("SAVEPOINT") ? Control.WITHIN : Control.OTHER;
            case "XA" ->
                switch (second) {
                    case "START", "BEGIN", "END" -> Control.WITHIN;
                    case "COMMIT", "ROLLBACK" -> Control.XA_END_OF_PREPARED;
                    default -> Control.OTHER;
                };
            default -> Control.OTHER;
        };
    }

    /**
     * The first of {@code watched} that {@code sql} names, qualified ({@code db.t}) or unqualified
     * while {@code defaultSchema} (the QUERY event's current database) is the table's schema; or, for
     * {@code DROP DATABASE}/{@code DROP SCHEMA}, the first watched table in the dropped schema.
     */
    static Optional<TableShape> names(String sql, String defaultSchema, Collection<TableShape> watched) {
        List<String> tokens = tokens(sql);
        boolean dropsSchema = tokens.size() > 1
                && tokens.get(0).equalsIgnoreCase("DROP")
                && (tokens.get(1).equalsIgnoreCase("DATABASE") || tokens.get(1).equalsIgnoreCase("SCHEMA"));
        for (TableShape table : watched) {
            for (int i = 0; i < tokens.size(); i++) {
                String token = tokens.get(i);
                if (dropsSchema && token.equalsIgnoreCase(table.schema())) {
                    return Optional.of(table);
                }
                if (!token.equalsIgnoreCase(table.table())) {
                    continue;
                }
                boolean qualified = i >= 2 && tokens.get(i - 1).equals(".");
                String schema = qualified ? tokens.get(i - 2) : defaultSchema;
                // an unqualified name without a current database could be anything: a match
                if (schema == null || schema.isEmpty() || schema.equalsIgnoreCase(table.schema())) {
                    return Optional.of(table);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The transaction id of an {@code XA START|BEGIN|COMMIT|ROLLBACK xid} statement, normalised
     * (upper case, no blanks) so the statements of one XA transaction give the same text.
     */
    static String xid(String sql) {
        String s = stripLeadingComments(sql);
        int verb = 0;
        int words = 0;
        while (verb < s.length() && words < 2) {
            while (verb < s.length() && Character.isWhitespace(s.charAt(verb))) {
                verb++;
            }
            while (verb < s.length() && !Character.isWhitespace(s.charAt(verb))) {
                verb++;
            }
            words++;
        }
        return s.substring(verb).replaceAll("\\s+", "").toUpperCase(Locale.ROOT);
    }

    /** The first {@code limit} words, upper case, skipping leading comments. */
    private static List<String> words(String sql, int limit) {
        List<String> words = new ArrayList<>();
        for (String token : tokens(stripLeadingComments(sql))) {
            if (words.size() == limit) {
                break;
            }
            words.add(token.toUpperCase(Locale.ROOT));
        }
        return words;
    }

    private static String stripLeadingComments(String sql) {
        String s = sql.strip();
        while (s.startsWith("/*") && !s.startsWith("/*!") && !s.startsWith("/*M!")) {
            int end = s.indexOf("*/");
            if (end < 0) {
                return "";
            }
            s = s.substring(end + 2).strip();
        }
        return s;
    }

    /**
     * Identifiers and keywords (backquoted and double-quoted ones unquoted), and "." as a token of
     * its own; single-quoted strings and other punctuation dropped.
     */
    static List<String> tokens(String sql) {
        List<String> tokens = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '`' || c == '"') {
                StringBuilder name = new StringBuilder();
                i++;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == c) {
                        if (i + 1 < n && sql.charAt(i + 1) == c) { // doubled quote inside the name
                            name.append(c);
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    name.append(d);
                    i++;
                }
                tokens.add(name.toString());
            } else if (c == '\'') {
                i++;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '\\') {
                        i += 2;
                    } else if (d == '\'' && i + 1 < n && sql.charAt(i + 1) == '\'') {
                        i += 2;
                    } else if (d == '\'') {
                        i++;
                        break;
                    } else {
                        i++;
                    }
                }
            } else if (c == '.') {
                tokens.add(".");
                i++;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c > 0x7F) {
                int start = i;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (!(Character.isLetterOrDigit(d) || d == '_' || d == '$' || d > 0x7F)) {
                        break;
                    }
                    i++;
                }
                tokens.add(sql.substring(start, i));
            } else {
                i++;
            }
        }
        return tokens;
    }
}
