package io.shardgate.router.session;

/**
 * MySQL's lexical structure, just enough to scan statements for session effects: words, quoted
 * strings and identifiers, {@code @user} and {@code @@system} variables, operators and punctuation;
 * whitespace and comments ({@code -- }, {@code #}, {@code /* *}{@code /}) are skipped. The content
 * of MySQL's executable comments ({@code /*!NNNNN ...*}{@code /}) is read as code, as the digest
 * reads it (what mysqldump writes: {@code SELECT /*!40001 SQL_NO_CACHE *}{@code / ...}); MariaDB's
 * ({@code /*M!...*}{@code /}), a comment to the digest, is reported whole.
 */
final class Lexer {
    enum Kind {
        WORD,
        QUOTED_IDENTIFIER,
        STRING,
        NUMBER,
        USER_VARIABLE,
        SYSTEM_VARIABLE,
        OPERATOR,
        PUNCT,
        VERSIONED_COMMENT,
        END
    }

    final String text;
    int pos;
    Kind kind;
    int start;
    int end;

    Lexer(String text) {
        this.text = text;
    }

    /**
     * True when {@code upper} (an upper-case ASCII word) occurs in {@code text} in any case: a
     * cheap test before tokenising, for statements that almost never contain the word.
     */
    static boolean mentions(String text, String upper) {
        char first = upper.charAt(0);
        char lower = Character.toLowerCase(first);
        for (int i = 0, last = text.length() - upper.length(); i <= last; i++) {
            char c = text.charAt(i);
            if ((c == first || c == lower) && text.regionMatches(true, i, upper, 0, upper.length())) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code keyword} (upper case) is the current word, case-insensitively. */
    boolean is(String keyword) {
        return kind == Kind.WORD
                && end - start == keyword.length()
                && text.regionMatches(true, start, keyword, 0, keyword.length());
    }

    /** Moves to the next token; false (and kind END) at the end of the text. */
    boolean next() {
        int n = text.length();
        while (pos < n) {
            char c = text.charAt(pos);
            if (Character.isWhitespace(c)) {
                pos++;
            } else if (c == '#'
                    || (c == '-'
                            && pos + 2 <= n
                            && text.startsWith("--", pos)
                            && (pos + 2 == n || Character.isWhitespace(text.charAt(pos + 2))))) {
                int eol = text.indexOf('\n', pos);
                pos = eol < 0 ? n : eol + 1;
            } else if (c == '*' && pos + 1 < n && text.charAt(pos + 1) == '/') {
                // the end of an executable comment (a scan may start inside one); elsewhere a syntax error
                pos += 2;
            } else if (c == '/' && pos + 2 < n && text.charAt(pos + 1) == '*' && text.charAt(pos + 2) == '!') {
                // MySQL's executable comment: its content is code (as the digest reads it); skip the
                // marker and the version number
                pos += 3;
                while (pos < n && Character.isDigit(text.charAt(pos))) {
                    pos++;
                }
            } else if (c == '/' && pos + 1 < n && text.charAt(pos + 1) == '*') {
                int close = text.indexOf("*/", pos + 2);
                // MariaDB's /*M! ... */: code to MariaDB, a comment to the digest; pinned when in doubt
                boolean versioned = pos + 3 < n && text.charAt(pos + 2) == 'M' && text.charAt(pos + 3) == '!';
                start = pos;
                pos = close < 0 ? n : close + 2;
                if (versioned) {
                    end = pos;
                    kind = Kind.VERSIONED_COMMENT;
                    return true;
                }
            } else {
                return token(c, n);
            }
        }
        kind = Kind.END;
        start = end = n;
        return false;
    }

    private boolean token(char c, int n) {
        start = pos;
        if (c == '\'' || c == '"') {
            pos = closeQuote(c, pos + 1, true);
            kind = Kind.STRING;
        } else if (c == '`') {
            pos = closeQuote('`', pos + 1, false);
            kind = Kind.QUOTED_IDENTIFIER;
        } else if (c == '@') {
            if (pos + 1 < n && text.charAt(pos + 1) == '@') {
                pos += 2;
                // @@session. / @@global. / @@local. (MySQL: @@persist. / @@persist_only.) prefixes
                // are one token with their dot
                int word = wordEnd(pos);
                if (word < n && text.charAt(word) == '.') {
                    String scope = text.substring(pos, word);
                    if (scope.equalsIgnoreCase("session")
                            || scope.equalsIgnoreCase("global")
                            || scope.equalsIgnoreCase("local")
                            || scope.equalsIgnoreCase("persist")
                            || scope.equalsIgnoreCase("persist_only")) {
                        word++;
                    }
                }
                pos = word;
                kind = Kind.SYSTEM_VARIABLE;
            } else {
                pos++;
                if (pos < n && (text.charAt(pos) == '\'' || text.charAt(pos) == '"' || text.charAt(pos) == '`')) {
                    pos = closeQuote(text.charAt(pos), pos + 1, text.charAt(pos) != '`');
                } else {
                    pos = wordEnd(pos);
                }
                kind = Kind.USER_VARIABLE;
            }
        } else if (Character.isDigit(c)) {
            pos = wordEnd(pos);
            kind = Kind.NUMBER;
        } else if (isWordChar(c)) {
            pos = wordEnd(pos);
            kind = Kind.WORD;
        } else if (c == '=' || (c == ':' && pos + 1 < n && text.charAt(pos + 1) == '=')) {
            pos += c == ':' ? 2 : 1;
            kind = Kind.OPERATOR;
        } else {
            pos++;
            kind = Kind.PUNCT;
        }
        end = pos;
        return true;
    }

    private int closeQuote(char quote, int i, boolean backslashEscapes) {
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < n && text.charAt(i + 1) == quote) {
                    i += 2; // doubled quote
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return n;
    }

    private int wordEnd(int i) {
        while (i < text.length() && isWordChar(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c > 0x7F;
    }
}
