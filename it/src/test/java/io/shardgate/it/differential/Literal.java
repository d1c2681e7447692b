package io.shardgate.it.differential;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * SQL literals of the generated statements: how a Java value is written into statement text and how
 * it is bound to a server-side prepared statement's parameter.
 */
final class Literal {
    /** A DATETIME(6) value, written as a quoted string and bound as one. */
    record DateTime(String text) {}

    private Literal() {}

    /** The value as SQL text: numbers as digits, strings quoted with {@code '} and {@code \} escaped. */
    static String sql(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof String s) {
            return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'";
        }
        if (v instanceof DateTime d) {
            return "'" + d.text() + "'";
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof Double d) {
            return d.toString().replace("E", "e"); // 1.0e-7 is a DOUBLE literal in MySQL
        }
        return v.toString(); // Long, Integer, BigInteger
    }

    static void bind(PreparedStatement p, int index, Object v) throws SQLException {
        if (v == null) {
            p.setNull(index, Types.VARCHAR);
        } else if (v instanceof String s) {
            p.setString(index, s);
        } else if (v instanceof DateTime d) {
            p.setString(index, d.text());
        } else if (v instanceof BigDecimal d) {
            p.setBigDecimal(index, d);
        } else if (v instanceof BigInteger b) {
            p.setBigDecimal(index, new BigDecimal(b));
        } else if (v instanceof Double d) {
            p.setDouble(index, d);
        } else if (v instanceof Integer i) {
            p.setInt(index, i);
        } else {
            p.setLong(index, (Long) v);
        }
    }

    /** {@code template} with each {@code ?} replaced by its value as SQL text ({@code ?} never occurs in generated text otherwise). */
    static String inline(String template, java.util.List<Object> params) {
        StringBuilder out = new StringBuilder(template.length() + 16 * params.size());
        int p = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '?') {
                out.append(sql(params.get(p++)));
            } else {
                out.append(c);
            }
        }
        if (p != params.size()) {
            throw new IllegalStateException(params.size() + " params for " + p + " placeholders: " + template);
        }
        return out.toString();
    }
}
