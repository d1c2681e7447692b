package io.shardgate.sharding.digest;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

/**
 * A statement's shape: the client's SQL with literals replaced by {@code ?}, whitespace and
 * comments folded, reserved words upper-cased and {@code IN} lists of literals collapsed to {@code
 * IN (...)}, plus a 64-bit hash of that text and where each literal was. Statements that differ
 * only in their literal values share a digest, hence a plan and per-digest statistics.
 *
 * <p>Rules of the normalized text: tokens separated by one space, none after {@code (} or {@code
 * .} nor before {@code )}, {@code ,} or {@code .}; a name stays glued to a following {@code (} as
 * in the source ({@code COUNT(*)}: MySQL rejects {@code COUNT (*)}); MySQL reserved words are
 * upper-cased, other identifiers keep their case (table names are case-sensitive on most servers);
 * {@code NULL}, {@code TRUE}, {@code FALSE} stay keywords; a unary sign before a number belongs to
 * the literal; {@code /*!NNNNN ...*}{@code /} content is code; trailing semicolons are dropped.
 *
 * <p>The hash is FNV-1a 64 over the text's UTF-16 code units finished with MurmurHash3's fmix64.
 * Equal texts have equal hashes; callers that must not confuse two statements (the plan cache)
 * also compare {@link #text()}.
 */
public final class Digest {
    private final String sql;
    private final String text;
    private final long hash;
    private final List<Literal> literals;
    private final int slots;
    private final int parameters;
    private final int hints;
    private final int marks;
    private final boolean multiStatement;
    private final List<Integer> listSlots;
    private final StatementPrefix prefix;

    Digest(
            String sql,
            String text,
            long hash,
            List<Literal> literals,
            int slots,
            int parameters,
            int hints,
            int marks,
            boolean multiStatement,
            List<Integer> listSlots,
            StatementPrefix prefix) {
        this.prefix = prefix;
        this.sql = sql;
        this.text = text;
        this.hash = hash;
        this.literals = List.copyOf(literals);
        this.slots = slots;
        this.parameters = parameters;
        this.hints = hints;
        this.marks = marks;
        this.multiStatement = multiStatement;
        this.listSlots = List.copyOf(listSlots);
    }

    /** Whether {@code word} (any case) is a MySQL reserved word: never a name unless back-quoted. */
    public static boolean isReservedWord(String word) {
        return Keywords.RESERVED_WORDS.lookup(word, 0, word.length()) != null;
    }

    /**
     * Digests one statement's SQL text in one pass. Of {@code SET STATEMENT ... FOR <statement>} the
     * digest is the inner statement's, with the {@link #prefix()} kept aside (and in the hash: the
     * variables it sets can change a plan).
     */
    public static Digest of(String sql) {
        StatementPrefix prefix = StatementPrefix.of(sql);
        if (prefix == null) {
            return Normalizer.digest(sql);
        }
        Digest inner = Normalizer.digest(sql.substring(prefix.text().length()));
        return new Digest(
                inner.sql,
                inner.text,
                inner.hash ^ Normalizer.hash("SET STATEMENT " + String.join(",", prefix.variables()) + " FOR"),
                inner.literals,
                inner.slots,
                inner.parameters,
                inner.hints,
                // what the prefix's values mention counts too (SET STATEMENT x = @v FOR ...)
                inner.marks | Normalizer.digest(prefix.text()).marks,
                inner.multiStatement,
                inner.listSlots,
                prefix);
    }

    /**
     * The {@code SET STATEMENT ... FOR} the client wrote before the statement, or null: {@link
     * #sql()}, {@link #text()} and the literals are the inner statement's; whatever sends SQL to a
     * backend puts the prefix's text before it.
     */
    public StatementPrefix prefix() {
        return prefix;
    }

    /** The client's SQL, unchanged (after the {@link #prefix()}, if any). */
    public String sql() {
        return sql;
    }

    /** The normalized text. */
    public String text() {
        return text;
    }

    public long hash() {
        return hash;
    }

    /** Every literal and placeholder in source order. */
    public List<Literal> literals() {
        return literals;
    }

    /** How many {@code ?} the normalized text has; a collapsed {@code IN (...)} counts as one. */
    public int slotCount() {
        return slots;
    }

    /** Whether slot {@code slot} is a collapsed {@code IN (...)} list. */
    public boolean isListSlot(int slot) {
        return listSlots.contains(slot);
    }

    /** How many prepared-statement placeholders the SQL has. */
    public int parameterCount() {
        return parameters;
    }

    public boolean has(Hint hint) {
        return (hints & hint.bit()) != 0;
    }

    /** Whether the client's text has {@code mark} (or its {@link #prefix()}'s values do). */
    public boolean has(Mark mark) {
        return (marks & mark.bit()) != 0;
    }

    /** Whether the client's text has none of the marks: nothing but planning looks at the statement. */
    public boolean unmarked() {
        return marks == 0;
    }

    /**
     * Whether the statement's first word (after any opening parentheses) is {@code keyword}, in
     * any letter case: a look at the normalized text's start, no scan.
     */
    public boolean startsWith(String keyword) {
        int i = 0;
        while (i < text.length() && text.charAt(i) == '(') {
            i++;
        }
        int end = i + keyword.length();
        return text.regionMatches(true, i, keyword, 0, keyword.length())
                && (end == text.length() || !isWordChar(text.charAt(end)));
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** Whether the text holds more than one statement (a {@code ;} before more tokens). */
    public boolean multiStatement() {
        return multiStatement;
    }

    /**
     * The text Calcite parses: the normalized text with each {@code IN (...)} written as {@code IN
     * (?  )}, the same length, so parser positions are offsets into {@link #text()} and the i-th
     * dynamic parameter is slot i.
     */
    public String parseText() {
        return text.replace("(...)", "(?  )");
    }

    /** The literal's text exactly as the client wrote it. */
    public String source(Literal literal) {
        return sql.substring(literal.start(), literal.end());
    }

    /**
     * The literal's value: {@link Long} (or {@link BigInteger} past the long range) for integers,
     * {@link BigDecimal} for decimals, {@link Double} for floats, {@link String} (escapes decoded,
     * introducer dropped) for strings, {@code byte[]} for hex and bit literals; placeholders have no
     * value here ({@code null}): theirs is bound at execution.
     */
    public Object value(Literal literal) {
        return switch (literal.kind()) {
            // numbers may hold spaces between a folded unary sign and the digits: "- 42"
            case INTEGER -> LiteralValues.integer(sql, literal.start(), literal.end());
            case DECIMAL -> new BigDecimal(LiteralValues.withoutSpaces(sql, literal.start(), literal.end()));
            case FLOAT -> Double.parseDouble(LiteralValues.withoutSpaces(sql, literal.start(), literal.end()));
            case STRING -> LiteralValues.string(source(literal));
            case HEX -> LiteralValues.hex(source(literal));
            case BIT -> LiteralValues.bits(source(literal));
            case PARAMETER -> null;
        };
    }

    @Override
    public String toString() {
        return text;
    }
}
