package io.shardgate.sharding.plan;

/**
 * How deep a normalized statement nests, checked before Calcite parses it. Calcite's parser and
 * the visitors over its tree recurse once per parenthesis level and once per operand of a chain of
 * binary operators ({@code a OR b OR c...} becomes a tree as deep as the chain), so 100k nested
 * parentheses or ORs would overflow the event loop's stack, and long chains cost the planner time
 * that grows faster than their length. Statements past either bound are not parsed: the planner
 * refuses them with the reason (ER_NOT_SUPPORTED_YET), and the router passes them to the backend
 * when the schema is not sharded, as it does with every statement Calcite cannot read.
 */
final class StatementComplexity {
    /** Deepest parenthesis nesting planned; MySQL's own limit on nested subqueries is 63. */
    static final int MAX_DEPTH = 200;
    /** Most binary operators (boolean, set, arithmetic) in one statement planned. */
    static final int MAX_OPERATORS = 1_000;

    private StatementComplexity() {}

    /**
     * Why {@code text} is too complex to plan, or null. {@code text} is a digest's normalized text:
     * literals are {@code ?} and tokens are separated by single spaces, so parentheses and
     * operators are never inside a string.
     */
    static String tooComplex(String text) {
        int depth = 0;
        int deepest = 0;
        int operators = 0;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == '(') {
                deepest = Math.max(deepest, ++depth);
            } else if (c == ')') {
                depth--;
            } else if (c == ' ' && i + 1 < n && isOperator(text, i + 1)) {
                operators++;
            }
        }
        if (deepest > MAX_DEPTH) {
            return "statements nested deeper than " + MAX_DEPTH + " parentheses (this one: " + deepest + ")";
        }
        if (operators > MAX_OPERATORS) {
            return "statements with more than " + MAX_OPERATORS + " operators such as OR, AND, UNION or + (this one: "
                    + operators + ")";
        }
        return null;
    }

    /** Whether the token at {@code at} is a binary operator that chains (followed by a space). */
    private static boolean isOperator(String text, int at) {
        int end = text.indexOf(' ', at);
        if (end < 0) {
            return false;
        }
        int length = end - at;
        if (length == 1) {
            char c = text.charAt(at);
            return c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '|' || c == '&' || c == '^';
        }
        return switch (length) {
            case 2 ->
                text.regionMatches(true, at, "OR", 0, 2) || text.startsWith("||", at) || text.startsWith("&&", at);
            case 3 ->
                text.regionMatches(true, at, "AND", 0, 3)
                        || text.regionMatches(true, at, "XOR", 0, 3)
                        || text.regionMatches(true, at, "DIV", 0, 3)
                        || text.regionMatches(true, at, "MOD", 0, 3);
            case 5 -> text.regionMatches(true, at, "UNION", 0, 5);
            case 6 -> text.regionMatches(true, at, "EXCEPT", 0, 6);
            case 9 -> text.regionMatches(true, at, "INTERSECT", 0, 9);
            default -> false;
        };
    }
}
