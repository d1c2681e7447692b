package io.shardgate.sharding.digest;

import java.util.ArrayList;
import java.util.List;

/**
 * The single left-to-right pass behind {@link Digest#of}: a hand-written MySQL lexer rather than a
 * parser, because it runs for every statement (a parser runs only on a plan-cache miss). It appends
 * canonical tokens to one {@link StringBuilder} and records literal positions; it never allocates a
 * String per token. Each thread reuses one instance ({@link #digest}), its builder and literal list
 * included: a digest allocates only what it keeps (the text, the literals, the Digest). Not
 * thread-safe.
 */
final class Normalizer {
    // token types, for spacing, unary-sign and IN-list decisions
    private static final int NONE = 0;
    private static final int WORD = 1;
    private static final int KEYWORD = 2;
    private static final int VALUE_KEYWORD = 3; // NULL, TRUE, FALSE: a '-' after them is binary
    private static final int LITERAL = 4;
    private static final int OPEN = 5;
    private static final int CLOSE = 6;
    private static final int COMMA = 7;
    private static final int DOT = 8;
    private static final int OP = 9;
    private static final int VAR = 10;
    private static final int SEMI = 11;

    // IN (...) collapsing states
    private static final int IN_NONE = 0;
    private static final int IN_OPEN = 1;
    private static final int IN_EXPECT = 2;
    private static final int IN_AFTER = 3;

    private static final String[] OPERATORS = {"<=>", "->>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->"
    };

    /** A builder grown past this by a long statement is not kept for the thread's next one. */
    private static final int KEPT_CAPACITY = 1 << 16;

    private static final ThreadLocal<Normalizer> REUSED = ThreadLocal.withInitial(Normalizer::new);

    private String sql;
    private int n;
    private StringBuilder out = new StringBuilder(256);
    private final List<Literal> literals = new ArrayList<>();
    /** This instance is digesting a statement (a reentrant call gets a fresh one). */
    private boolean busy;

    private List<Integer> listSlots = List.of(); // most statements have no IN list: no list until one
    private int pos;
    private int last = NONE;
    private boolean sawSpace;
    private int slots;
    private int parameters;
    private int hints;
    private int marks;
    private boolean inVersionedComment;
    private boolean multiStatement;
    private int statementStart; // out length where the current statement began
    // a unary sign waiting to see whether a number follows
    private int signOut = -1;
    private int signSrc;
    // IN (...) collapsing
    private int inState = IN_NONE;
    private int inOut;
    private int inSlot;
    private int inLiteral;

    /** The digest of {@code sql}, by this thread's reused instance. */
    static Digest digest(String sql) {
        Normalizer normalizer = REUSED.get();
        if (normalizer.busy) {
            return new Normalizer().start(sql).run();
        }
        normalizer.busy = true;
        try {
            return normalizer.start(sql).run();
        } finally {
            normalizer.busy = false;
            normalizer.sql = null; // holds no statement between calls
        }
    }

    /** Every field as a new instance has it, for {@code sql}. */
    Normalizer start(String sql) {
        this.sql = sql;
        this.n = sql.length();
        if (out.capacity() > KEPT_CAPACITY) {
            out = new StringBuilder(256);
        }
        out.setLength(0);
        literals.clear();
        listSlots = List.of();
        pos = 0;
        last = NONE;
        sawSpace = false;
        slots = 0;
        parameters = 0;
        hints = 0;
        marks = 0;
        inVersionedComment = false;
        multiStatement = false;
        statementStart = 0;
        signOut = -1;
        signSrc = 0;
        lastBeforeSign = NONE;
        inState = IN_NONE;
        inOut = 0;
        inSlot = 0;
        inLiteral = 0;
        return this;
    }

    Digest run() {
        while (pos < n) {
            step();
        }
        int end = out.length();
        while (end > 0 && out.charAt(end - 1) == ';') {
            end--;
            while (end > 0 && out.charAt(end - 1) == ' ') {
                end--;
            }
        }
        out.setLength(end);
        multiStatement = multiStatement && out.indexOf(";") >= 0 && hasSemicolonOutsideQuotes();
        String text = out.toString();
        return new Digest(
                sql, text, hash(text), literals, slots, parameters, hints, marks, multiStatement, listSlots, null);
    }

    private void step() {
        char c = sql.charAt(pos);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B) {
            pos++;
            sawSpace = true;
        } else if (c == '#' || (c == '-' && startsLineComment())) {
            skipLineComment();
        } else if (c == '/' && at(pos + 1) == '*') {
            blockComment();
        } else if (c == '*' && at(pos + 1) == '/' && inVersionedComment) {
            inVersionedComment = false;
            pos += 2;
            sawSpace = true;
        } else if (c == '\'' || c == '"') {
            int start = pos;
            skipQuoted(c);
            literal(LiteralKind.STRING, start, pos);
        } else if (c == '`') {
            int start = pos;
            skipQuoted('`');
            if (pos - start == 13 && sql.regionMatches(true, start + 1, "processlist", 0, 11)) {
                marks |= Mark.PROCESSLIST.bit(); // information_schema.`PROCESSLIST`
            }
            append(WORD, start, pos);
        } else if (isDigit(c) || (c == '.' && isDigit(at(pos + 1)) && last != WORD && last != CLOSE)) {
            number();
        } else if (isIdentStart(c)) {
            word();
        } else if (c == '?') {
            literals.add(new Literal(LiteralKind.PARAMETER, slotFor(), pos, pos + 1, parameters++));
            pos++;
            afterLiteral();
        } else if (c == '@') {
            variable();
        } else {
            punctuation(c);
        }
    }

    private void punctuation(char c) {
        switch (c) {
            case '(' -> {
                pos++;
                if (inState == IN_OPEN) {
                    inOut = out.length();
                    emit(OPEN, "(");
                    inState = IN_EXPECT;
                    inSlot = slots;
                    inLiteral = literals.size();
                } else {
                    emit(OPEN, "(");
                    inState = IN_NONE;
                }
            }
            case ')' -> {
                pos++;
                if (inState == IN_AFTER) {
                    collapseInList();
                } else {
                    emit(CLOSE, ")");
                }
                inState = IN_NONE;
            }
            case ',' -> {
                pos++;
                emit(COMMA, ",");
                inState = inState == IN_AFTER ? IN_EXPECT : IN_NONE;
            }
            case '.' -> {
                pos++;
                emit(DOT, ".");
                inState = IN_NONE;
            }
            case ';' -> {
                pos++;
                emit(SEMI, ";");
                multiStatement = true;
                statementStart = out.length();
                inState = IN_NONE;
            }
            default -> operator(c);
        }
    }

    private void operator(char c) {
        int prev = last;
        boolean unary = (c == '-' || c == '+')
                && (prev == NONE || prev == OPEN || prev == COMMA || prev == OP || prev == KEYWORD);
        int before = out.length();
        int start = pos;
        String op = null;
        for (String candidate : OPERATORS) {
            if (sql.startsWith(candidate, pos)) {
                op = candidate;
                break;
            }
        }
        int keepIn = inState;
        if (op != null) {
            pos += op.length();
            emit(OP, op);
        } else {
            pos++;
            emitChar(OP, c);
        }
        if (unary) {
            lastBeforeSign = prev;
            signOut = before;
            signSrc = start;
            inState = keepIn == IN_EXPECT ? IN_EXPECT : IN_NONE;
        } else {
            signOut = -1;
            inState = IN_NONE;
        }
    }

    private void number() {
        int start = pos;
        LiteralKind kind;
        if (sql.charAt(pos) == '0' && (at(pos + 1) == 'x' || at(pos + 1) == 'b') && radixDigits(pos + 2, at(pos + 1))) {
            kind = at(pos + 1) == 'x' ? LiteralKind.HEX : LiteralKind.BIT;
            pos += 2;
            while (pos < n && isRadixDigit(sql.charAt(pos), kind == LiteralKind.HEX ? 'x' : 'b')) {
                pos++;
            }
        } else {
            kind = LiteralKind.INTEGER;
            while (pos < n && isDigit(sql.charAt(pos))) {
                pos++;
            }
            if (pos < n && sql.charAt(pos) == '.') {
                kind = LiteralKind.DECIMAL;
                pos++;
                while (pos < n && isDigit(sql.charAt(pos))) {
                    pos++;
                }
            }
            if (pos < n && (sql.charAt(pos) == 'e' || sql.charAt(pos) == 'E')) {
                int e = pos + 1;
                if (e < n && (sql.charAt(e) == '+' || sql.charAt(e) == '-')) {
                    e++;
                }
                if (e < n && isDigit(sql.charAt(e))) {
                    kind = LiteralKind.FLOAT;
                    pos = e;
                    while (pos < n && isDigit(sql.charAt(pos))) {
                        pos++;
                    }
                }
            }
        }
        if (pos < n && isIdentPart(sql.charAt(pos)) && kind != LiteralKind.DECIMAL && kind != LiteralKind.FLOAT) {
            pos = start; // MySQL identifiers may begin with digits: 1abc, 0xyz
            word();
            return;
        }
        literal(kind, start, pos);
    }

    private void word() {
        int start = pos;
        while (pos < n && isIdentPart(sql.charAt(pos))) {
            pos++;
        }
        int len = pos - start;
        char next = at(pos);
        if (next == '\'' || (next == '"' && sql.charAt(start) == '_')) {
            char first = sql.charAt(start);
            LiteralKind kind = null;
            if (len == 1 && (first == 'x' || first == 'X')) {
                kind = LiteralKind.HEX;
            } else if (len == 1 && (first == 'b' || first == 'B')) {
                kind = LiteralKind.BIT;
            } else if ((len == 1 && (first == 'n' || first == 'N')) || first == '_') {
                kind = LiteralKind.STRING; // N'..' or a character set introducer: _utf8mb4'..'
            }
            if (kind != null) {
                skipQuoted(next);
                literal(kind, start, pos);
                return;
            }
        }
        String marked = Keywords.MARKED_WORDS.lookup(sql, start, pos);
        if (marked != null) {
            marks |= Mark.ofWord(marked).bit(); // t.temporary too: when in doubt a later step looks closer
        }
        if (last != DOT) {
            String keyword = Keywords.RESERVED_WORDS.lookup(sql, start, pos);
            if (keyword != null) {
                boolean value = keyword.equals("NULL") || keyword.equals("TRUE") || keyword.equals("FALSE");
                emit(value ? VALUE_KEYWORD : KEYWORD, keyword);
                inState = keyword.equals("IN") ? IN_OPEN : IN_NONE;
                return;
            }
            String function = next == '(' ? Keywords.FUNCTION_WORDS.lookup(sql, start, pos) : null;
            if (function != null) {
                emit(WORD, function);
                inState = IN_NONE;
                return;
            }
            String statement = out.length() == statementStart ? Keywords.STATEMENT_WORDS.lookup(sql, start, pos) : null;
            if (statement != null) {
                emit(KEYWORD, statement);
                inState = IN_NONE;
                return;
            }
        }
        append(WORD, start, pos);
    }

    private void variable() {
        int start = pos;
        pos++;
        if (at(pos) == '@') {
            pos++;
        }
        char q = at(pos);
        if (q == '\'' || q == '"' || q == '`') {
            skipQuoted(q);
        } else {
            while (pos < n && (isIdentPart(sql.charAt(pos)) || sql.charAt(pos) == '.')) {
                pos++;
            }
        }
        if (at(start + 1) != '@') {
            marks |= Mark.USER_VARIABLE.bit();
        } else {
            markSystemVariable(start + 2, pos);
        }
        append(VAR, start, pos);
    }

    /** {@code @@[scope.]name} (the name from {@code from} to {@code end}): the counts and identity names. */
    private void markSystemVariable(int from, int end) {
        int dot = sql.lastIndexOf('.', end - 1);
        int name = dot >= from ? dot + 1 : from;
        int len = end - name;
        if ((len == 13 && sql.regionMatches(true, name, "warning_count", 0, 13))
                || (len == 11 && sql.regionMatches(true, name, "error_count", 0, 11))) {
            marks |= Mark.DIAGNOSTICS_COUNT.bit();
        } else if ((len == 8 && sql.regionMatches(true, name, "identity", 0, 8))
                || (len == 14 && sql.regionMatches(true, name, "last_insert_id", 0, 14))) {
            marks |= Mark.IDENTITY_VARIABLE.bit();
        } else if (len == 9 && sql.regionMatches(true, name, "last_gtid", 0, 9)) {
            marks |= Mark.LAST_GTID.bit();
        }
    }

    private void blockComment() {
        if (at(pos + 2) == '!') {
            // MySQL executable comment: its content is code; skip the marker and the version number
            pos += 3;
            while (pos < n && isDigit(sql.charAt(pos))) {
                pos++;
            }
            inVersionedComment = true;
            sawSpace = true;
            return;
        }
        int contentStart = pos + 2;
        if (at(contentStart) == 'M' && at(contentStart + 1) == '!') {
            marks |= Mark.MARIADB_EXECUTABLE_COMMENT.bit();
        }
        int close = sql.indexOf("*/", contentStart);
        int contentEnd = close < 0 ? n : close;
        pos = close < 0 ? n : close + 2;
        sawSpace = true;
        hint(contentStart, contentEnd);
    }

    private void hint(int start, int end) {
        while (start < end && Character.isWhitespace(sql.charAt(start))) {
            start++;
        }
        while (end > start && Character.isWhitespace(sql.charAt(end - 1))) {
            end--;
        }
        int len = end - start;
        if (len == 7 && sql.regionMatches(true, start, "nocache", 0, 7)) {
            hints |= Hint.NOCACHE.bit();
        } else if ((len == 4 && sql.regionMatches(true, start, "wipe", 0, 4))
                || (len == 7 && sql.regionMatches(true, start, "refresh", 0, 7))) {
            hints |= Hint.WIPE.bit();
        }
    }

    private boolean startsLineComment() {
        // "--" starts a comment only when followed by whitespace, a control character or the end
        if (at(pos + 1) != '-') {
            return false;
        }
        char after = at(pos + 2);
        return pos + 2 >= n || after <= ' ';
    }

    private void skipLineComment() {
        while (pos < n && sql.charAt(pos) != '\n') {
            pos++;
        }
        sawSpace = true;
    }

    /** Moves past a quoted run starting at {@code pos}: backslash escapes and doubled quotes. */
    private void skipQuoted(char quote) {
        pos++;
        while (pos < n) {
            char c = sql.charAt(pos);
            if (c == '\\' && quote != '`') {
                pos += 2;
            } else if (c == quote) {
                if (at(pos + 1) == quote) {
                    pos += 2;
                } else {
                    pos++;
                    return;
                }
            } else {
                pos++;
            }
        }
        pos = n; // unterminated: the server will reject it; the digest just ends
    }

    private void literal(LiteralKind kind, int start, int end) {
        boolean numeric = kind == LiteralKind.INTEGER || kind == LiteralKind.DECIMAL || kind == LiteralKind.FLOAT;
        if (numeric && signOut >= 0 && onlySpacesBetween(signSrc + 1, start)) {
            out.setLength(signOut);
            last = signOut == 0 ? NONE : lastBeforeSign;
            start = signSrc;
        }
        literals.add(new Literal(kind, slotFor(), start, end, -1));
        afterLiteral();
    }

    private int lastBeforeSign;

    private int slotFor() {
        emit(LITERAL, "?");
        return slots++;
    }

    private void afterLiteral() {
        inState = inState == IN_EXPECT ? IN_AFTER : IN_NONE;
    }

    private void collapseInList() {
        // every element was a literal or placeholder: one list slot, text "IN (...)"
        out.setLength(inOut);
        out.append(" (...)");
        done(CLOSE);
        for (int i = inLiteral; i < literals.size(); i++) {
            Literal l = literals.get(i);
            literals.set(i, new Literal(l.kind(), inSlot, l.start(), l.end(), l.parameter()));
        }
        slots = inSlot + 1;
        if (listSlots.isEmpty()) {
            listSlots = new ArrayList<>(2);
        }
        listSlots.add(inSlot);
    }

    private void emit(int type, String text) {
        space(type);
        out.append(text);
        done(type);
    }

    private void emitChar(int type, char c) {
        space(type);
        out.append(c);
        done(type);
    }

    private void append(int type, int start, int end) {
        space(type);
        out.append(sql, start, end);
        done(type);
        inState = IN_NONE;
    }

    private void done(int type) {
        if (type != OP) {
            signOut = -1;
        }
        last = type;
        sawSpace = false;
    }

    private void space(int type) {
        if (out.length() == statementStart && type != SEMI) {
            if (out.length() > 0) {
                out.append(' ');
            }
            return;
        }
        if (out.length() == 0 || type == CLOSE || type == COMMA || type == DOT || type == SEMI) {
            return;
        }
        if (last == OPEN || last == DOT) {
            return;
        }
        if (type == OPEN && last == WORD && !sawSpace) {
            return; // COUNT(*) must stay glued: "COUNT (*)" is a syntax error in MySQL
        }
        out.append(' ');
    }

    private boolean onlySpacesBetween(int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Character.isWhitespace(sql.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private boolean hasSemicolonOutsideQuotes() {
        for (int i = 0; i < out.length(); i++) {
            char c = out.charAt(i);
            if (c == '`') {
                i = out.indexOf("`", i + 1);
                if (i < 0) {
                    return false;
                }
            } else if (c == ';') {
                return true;
            }
        }
        return false;
    }

    private boolean radixDigits(int from, char radix) {
        return from < n && isRadixDigit(sql.charAt(from), radix);
    }

    private static boolean isRadixDigit(char c, char radix) {
        return radix == 'x' ? Character.digit(c, 16) >= 0 && c < 128 : c == '0' || c == '1';
    }

    private char at(int i) {
        return i < n ? sql.charAt(i) : '\0';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isIdentStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
    }

    private static boolean isIdentPart(char c) {
        return isIdentStart(c) || isDigit(c);
    }

    /** FNV-1a over the UTF-16 code units, finished with MurmurHash3's fmix64 for better low bits. */
    static long hash(CharSequence text) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
