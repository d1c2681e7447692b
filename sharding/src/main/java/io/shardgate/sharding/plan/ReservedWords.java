package io.shardgate.sharding.plan;

import io.shardgate.sharding.digest.Digest;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * MySQL's reserved words (the digest's list, {@link Digest#isReservedWord}) are never a name unless
 * back-quoted. When Calcite's parse of a statement holds one as a table, column or alias name,
 * Calcite read MySQL syntax it does not know as names (as {@code SELECT BINARY a} becomes a column
 * {@code BINARY} aliased {@code a}), so the parse is not the statement MySQL runs and must not be
 * planned from: the planner treats it as unparsed.
 */
final class ReservedWords {
    private ReservedWords() {}

    /** The first unquoted reserved word {@code parsed} holds as a name, or null when none. */
    static String misreadAsName(SqlNode parsed, String text) {
        String[] found = {null};
        parsed.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlIdentifier id) {
                for (int i = 0; i < id.names.size() && found[0] == null; i++) {
                    String name = id.names.get(i);
                    if (name.isEmpty() || !Digest.isReservedWord(name)) {
                        continue;
                    }
                    SqlParserPos pos = id.getComponentParserPosition(i);
                    int at = pos.getColumnNum() - 1;
                    boolean quoted = at >= 0 && at < text.length() && text.charAt(at) == '`';
                    if (!quoted) {
                        found[0] = name;
                    }
                }
                return null;
            }
        });
        return found[0];
    }
}
