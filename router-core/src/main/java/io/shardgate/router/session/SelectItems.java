package io.shardgate.router.session;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The select-list items of a statement's SELECTs (at any depth: subqueries and derived tables too)
 * that certainly have no alias: those the server names with their own text. An item without an
 * alias ends in {@code )}, a number or a variable; one ending in a word or a string may have one
 * ({@code SELECT f() x}), so it is left out, as is anything the scan is unsure of.
 */
final class SelectItems {
    /** Words that end a select list at the depth it started. */
    private static final Set<String> CLAUSES = Set.of(
            "FROM",
            "WHERE",
            "INTO",
            "GROUP",
            "HAVING",
            "ORDER",
            "LIMIT",
            "UNION",
            "EXCEPT",
            "INTERSECT",
            "WINDOW",
            "FOR",
            "LOCK",
            "PROCEDURE",
            "OFFSET",
            "FETCH");

    /** Modifiers that may follow SELECT before the first item. */
    private static final Set<String> MODIFIERS = Set.of(
            "ALL",
            "DISTINCT",
            "DISTINCTROW",
            "HIGH_PRIORITY",
            "STRAIGHT_JOIN",
            "SQL_SMALL_RESULT",
            "SQL_BIG_RESULT",
            "SQL_BUFFER_RESULT",
            "SQL_CACHE",
            "SQL_NO_CACHE",
            "SQL_CALC_FOUND_ROWS");

    private SelectItems() {}

    /**
     * The [start, end) offsets in {@code sql} of the items without an alias, in text order, none
     * inside another.
     */
    static List<int[]> unnamed(String sql) {
        List<int[]> items = new ArrayList<>();
        Lexer lexer = new Lexer(sql);
        // one frame per open parenthesis (and the text's own): the select list read there, or null
        List<Item> frames = new ArrayList<>();
        frames.add(null);
        while (lexer.next()) {
            if (lexer.kind == Lexer.Kind.VERSIONED_COMMENT) {
                return List.of(); // MariaDB's /*M! */ code: not read here
            }
            int top = frames.size() - 1;
            Item item = frames.get(top);
            char c = lexer.kind == Lexer.Kind.PUNCT ? sql.charAt(lexer.start) : 0;
            if (lexer.is("SELECT")) {
                frames.set(top, new Item());
            } else if (c == '(') {
                if (item != null) {
                    item.take(lexer, c);
                }
                frames.add(null);
            } else if (c == ')') {
                if (item != null) {
                    item.close(items); // a subquery's list ends
                }
                if (top > 0) {
                    frames.remove(top);
                    Item outer = frames.get(top - 1);
                    if (outer != null) {
                        outer.take(lexer, c);
                    }
                }
            } else if (item == null) {
                continue;
            } else if (c == ',') {
                item.close(items);
                item.next();
            } else if (c == ';' || isClause(lexer)) {
                item.close(items);
                frames.set(top, null);
            } else if (!(item.start < 0 && item.first && isModifier(lexer))) {
                item.named |= lexer.is("AS");
                item.take(lexer, c);
            }
        }
        if (frames.size() == 1 && frames.get(0) != null) {
            frames.get(0).close(items);
        }
        // an item of a subquery inside another item: the outer one names the column
        items.sort(java.util.Comparator.comparingInt(item -> item[0]));
        List<int[]> outermost = new ArrayList<>();
        for (int[] item : items) {
            if (outermost.isEmpty() || item[0] >= outermost.get(outermost.size() - 1)[1]) {
                outermost.add(item);
            }
        }
        return outermost;
    }

    private static boolean isClause(Lexer lexer) {
        for (String word : CLAUSES) {
            if (lexer.is(word)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isModifier(Lexer lexer) {
        for (String word : MODIFIERS) {
            if (lexer.is(word)) {
                return true;
            }
        }
        return false;
    }

    /** The item being read in a select list. */
    private static final class Item {
        int start = -1;
        int end;
        boolean named;
        boolean first = true;
        Lexer.Kind last;
        char lastChar;

        void take(Lexer lexer, char c) {
            if (start < 0) {
                start = lexer.start;
            }
            end = lexer.end;
            last = lexer.kind;
            lastChar = c;
        }

        void close(List<int[]> items) {
            boolean certainlyUnnamed = last == Lexer.Kind.NUMBER
                    || last == Lexer.Kind.USER_VARIABLE
                    || last == Lexer.Kind.SYSTEM_VARIABLE
                    || (last == Lexer.Kind.PUNCT && lastChar == ')');
            if (start >= 0 && !named && certainlyUnnamed) {
                items.add(new int[] {start, end});
            }
            start = -1; // (a list's end may be seen twice: a clause word, then its parenthesis)
        }

        /** After a comma: the next item. */
        void next() {
            start = -1;
            named = false;
            first = false;
            last = null;
        }
    }
}
