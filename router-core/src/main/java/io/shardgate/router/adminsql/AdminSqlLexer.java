package io.shardgate.router.adminsql;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits an admin statement into tokens: words (keywords, identifiers, {@code @@session.x}),
 * back-quoted identifiers, string and number literals, punctuation. Comments ({@code --}, {@code #},
 * {@code /* *\/}) are dropped; a trailing {@code ;} ends the statement.
 */
final class AdminSqlLexer {
    enum Kind {
        WORD,
        QUOTED_IDENTIFIER,
        STRING,
        NUMBER,
        SYMBOL,
        END
    }

    record Token(Kind kind, String text) {
        boolean is(String word) {
            return (kind == Kind.WORD || kind == Kind.SYMBOL) && text.equalsIgnoreCase(word);
        }
    }

    private AdminSqlLexer() {}

    static List<Token> tokens(String sql) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#' || (c == '-' && i + 2 <= n && sql.startsWith("--", i))) {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'' || c == '"') {
                StringBuilder text = new StringBuilder();
                i = quoted(sql, i, c, text);
                out.add(new Token(Kind.STRING, text.toString()));
            } else if (c == '`') {
                StringBuilder text = new StringBuilder();
                i = quoted(sql, i, '`', text);
                out.add(new Token(Kind.QUOTED_IDENTIFIER, text.toString()));
            } else if (Character.isDigit(c)
                    || (c == '-' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)) && signAllowed(out))) {
                int start = i++;
                while (i < n && (Character.isDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                out.add(new Token(Kind.NUMBER, sql.substring(start, i)));
            } else if (Character.isLetter(c) || c == '_' || c == '@' || c == '$') {
                int start = i++;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || "_@$.".indexOf(sql.charAt(i)) >= 0)) {
                    i++;
                }
                out.add(new Token(Kind.WORD, sql.substring(start, i)));
            } else if (c == ';') {
                i++;
                if (!sql.substring(i).isBlank()) {
                    throw new AdminSqlException(1064, "multi-statements are not supported by the admin endpoint");
                }
            } else {
                // any other character is a symbol; the grammar refuses it where it does not belong
                // (SET statements clients send on connect carry operators we never interpret)
                out.add(new Token(Kind.SYMBOL, String.valueOf(c)));
                i++;
            }
        }
        out.add(new Token(Kind.END, ""));
        return out;
    }

    /** A minus sign starts a number after an operator, a comma or a parenthesis, not after a value. */
    private static boolean signAllowed(List<Token> out) {
        if (out.isEmpty()) {
            return true;
        }
        Token last = out.get(out.size() - 1);
        return last.kind() == Kind.SYMBOL && !last.text().equals(")") || last.kind() == Kind.WORD;
    }

    /** Reads a quoted text starting at {@code start}; doubled quotes and backslash escapes inside. */
    private static int quoted(String sql, int start, char quote, StringBuilder text) {
        int i = start + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    text.append(quote);
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            if (c == '\\' && quote != '`' && i + 1 < sql.length()) {
                char e = sql.charAt(i + 1);
                text.append(
                        switch (e) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            case '0' -> '\0';
                            default -> e;
                        });
                i += 2;
                continue;
            }
            text.append(c);
            i++;
        }
        throw new AdminSqlException(1064, "unterminated " + quote + " quote");
    }
}
