package io.shardgate.router.session;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code GET [CURRENT] DIAGNOSTICS @a = ROW_COUNT [, @b = NUMBER ...]} outside a stored program:
 * the statement-information form that reads the previous statement's ROW_COUNT. Through the router
 * the server's value may not be the session's (a statement of the router's own ran in between on
 * that connection, or the statement ran on another pooled connection), so the router assigns the
 * value it knows itself, as {@code SET @a = n} — which, like GET DIAGNOSTICS, leaves the diagnostics
 * area alone (no table, no condition) and answers the same OK — and sends on the rest of the items
 * ({@code GET DIAGNOSTICS @b = NUMBER}) for the server to read its diagnostics area.
 *
 * @param rowCountTargets the user variables ROW_COUNT is assigned to, as written
 * @param otherItems the other items ({@code @b = NUMBER}) as written, in order
 * @param current GET CURRENT DIAGNOSTICS
 */
public record RowCountDiagnostics(List<String> rowCountTargets, List<String> otherItems, boolean current) {

    /**
     * The statement-information form of GET DIAGNOSTICS that reads ROW_COUNT, or null for any
     * other text (no ROW_COUNT item, the CONDITION form, a variable assigned twice, anything the
     * router does not read closely: the server then answers as the statement is).
     */
    public static RowCountDiagnostics parse(String sql) {
        Lexer lexer = new Lexer(sql);
        if (!lexer.next() || !lexer.is("GET")) {
            return null;
        }
        lexer.next();
        boolean current = lexer.is("CURRENT");
        if (current) {
            lexer.next();
        }
        if (!lexer.is("DIAGNOSTICS")) {
            return null;
        }
        List<String> rowCount = new ArrayList<>();
        List<String> others = new ArrayList<>();
        Set<String> targets = new HashSet<>();
        do {
            lexer.next();
            if (lexer.kind != Lexer.Kind.USER_VARIABLE) {
                return null; // a local variable (inside a stored program only) or the CONDITION form
            }
            String target = sql.substring(lexer.start, lexer.end);
            if (!targets.add(target.toLowerCase(Locale.ROOT))) {
                return null; // which assignment wins is the server's business
            }
            lexer.next();
            if (lexer.kind != Lexer.Kind.OPERATOR || lexer.text.charAt(lexer.start) != '=') {
                return null;
            }
            lexer.next();
            if (lexer.is("ROW_COUNT")) {
                rowCount.add(target);
            } else if (lexer.is("NUMBER")) {
                others.add(target + " = NUMBER");
            } else {
                return null;
            }
            lexer.next();
        } while (lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == ',');
        if (lexer.kind == Lexer.Kind.PUNCT && lexer.text.charAt(lexer.start) == ';') {
            lexer.next();
        }
        if (lexer.kind != Lexer.Kind.END || rowCount.isEmpty()) {
            return null;
        }
        return new RowCountDiagnostics(List.copyOf(rowCount), List.copyOf(others), current);
    }

    /** The assignment of the router's {@code rowCount} to the ROW_COUNT targets. */
    public String assignment(long rowCount) {
        StringBuilder out = new StringBuilder("SET ");
        for (int i = 0; i < rowCountTargets.size(); i++) {
            out.append(i == 0 ? "" : ", ")
                    .append(rowCountTargets.get(i))
                    .append(" = ")
                    .append(rowCount);
        }
        return out.toString();
    }

    /** The statement reading the other items on the server, or null when ROW_COUNT was all it read. */
    public String rest() {
        return otherItems.isEmpty()
                ? null
                : "GET " + (current ? "CURRENT " : "") + "DIAGNOSTICS " + String.join(", ", otherItems);
    }
}
