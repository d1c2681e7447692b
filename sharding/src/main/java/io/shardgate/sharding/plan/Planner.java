package io.shardgate.sharding.plan;

import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.StatementModifiers;
import io.shardgate.sharding.rule.Role;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImpl;
import org.apache.calcite.sql.validate.SqlConformanceEnum;

/**
 * Turns a statement digest into a {@link Plan}: which hostgroups run it, the SQL each receives and
 * how their results merge.
 *
 * <p>Design. Planning runs only on a plan-cache miss ({@link PlanCache}); a plan is reused for every
 * statement with the same normalized text, so it may depend on the text, the schema and the rule
 * version, never on literal values: routes name slots ({@code ?} positions), and values are applied
 * per execution by {@link Route#targets}. Calcite's Babel parser (MySQL conformance, back-tick
 * quoting, case kept) parses the normalized text, whose single line makes parser columns offsets
 * into it; rewrites are edits of that text filled back with the client's literal text. What Calcite
 * cannot parse (SET, SHOW, DDL, vendor syntax) goes through {@link StatementClassifier}'s explicit
 * token rules. Suffixes Calcite lacks ({@code FOR UPDATE}, {@code LOCK IN SHARE MODE}, {@code ON
 * DUPLICATE KEY UPDATE}, a DML {@code LIMIT ?}) are cut before parsing and kept in the SQL sent.
 *
 * <p>Invariant: when the planner is not sure a plan gives MySQL's answer it returns a {@link
 * Route.Refuse} (ER_NOT_SUPPORTED_YET with the reason), never a guess. Stateless and thread-safe.
 */
public final class Planner {
    private static final SqlParser.Config PARSER = SqlParser.config()
            .withParserFactory(SqlBabelParserImpl.FACTORY)
            .withConformance(SqlConformanceEnum.MYSQL_5)
            .withQuoting(Quoting.BACK_TICK)
            .withUnquotedCasing(Casing.UNCHANGED)
            .withQuotedCasing(Casing.UNCHANGED)
            .withCaseSensitive(false);
    private static final Pattern LOCKING = Pattern.compile(
            " (?:FOR UPDATE|FOR SHARE|LOCK IN SHARE MODE)(?: NOWAIT| SKIP LOCKED)?$", Pattern.CASE_INSENSITIVE);
    private static final Pattern ON_DUPLICATE = Pattern.compile(" ON DUPLICATE KEY UPDATE (.*)$");
    private static final Pattern DML_LIMIT = Pattern.compile(" LIMIT \\?$");

    /** Plans one statement for a session whose current schema is {@code schema} (may be null). */
    public Plan plan(Digest digest, String schema, RuleSnapshot rules) {
        return plan(digest, schema, rules, ColumnCatalog.EMPTY);
    }

    /**
     * Plans one statement with the tracked column lists {@code columns} (an INSERT without a column
     * list into a sharded table reads its table's, a string sharding key its collation); the plan
     * records their version if it read them.
     */
    public Plan plan(Digest digest, String schema, RuleSnapshot rules, ColumnCatalog columns) {
        boolean[] readColumns = {false};
        Planned p = planned(digest, schema, rules, columns, readColumns);
        String prefixRefusal = digest.prefix() == null ? null : digest.prefix().severalShardsRefusal();
        if (prefixRefusal != null) {
            p = oneShardOnly(p, prefixRefusal);
        }
        return new Plan(
                new PlanKey(rules.version(), schema, digest.hash()),
                digest.text(),
                p.kind(),
                p.role(),
                p.route(),
                p.sql(),
                p.scatterSql(),
                p.merge(),
                new PlanStats(),
                readColumns[0] ? columns.version() : Plan.NO_COLUMNS);
    }

    private Planned planned(
            Digest digest, String schema, RuleSnapshot rules, ColumnCatalog columns, boolean[] readColumns) {
        String text = digest.text();
        if (text.isEmpty()) {
            return Planned.of(
                    StatementKind.OTHER, Role.WRITER, new Route.Refuse(ErrorCode.ER_EMPTY_QUERY, "Query was empty"));
        }
        if (digest.multiStatement()) {
            return Planned.refuse(StatementKind.OTHER, "several statements in one query");
        }
        String first = StatementClassifier.firstWord(text);
        String tooComplex = StatementComplexity.tooComplex(text);
        if (tooComplex != null) {
            return Planned.refuse(StatementKind.OTHER, tooComplex);
        }
        try {
            return parsed(digest, schema, rules, columns, first, readColumns);
        } catch (StackOverflowError e) {
            // below the bounds above but still too deep for this thread's stack: refuse, never crash the loop
            return Planned.refuse(StatementKind.OTHER, "statements nested this deeply (the planner ran out of stack)");
        } catch (RuntimeException e) {
            // a construct some planning step did not expect (the differential tester found a parser
            // position of -1 inside an aggregate's ORDER BY): refused, never a dropped connection
            return Planned.refuse(
                    StatementKind.OTHER,
                    "a statement the planner could not plan (" + e.getClass().getSimpleName() + ")");
        }
    }

    private Planned parsed(
            Digest digest,
            String schema,
            RuleSnapshot rules,
            ColumnCatalog columns,
            String first,
            boolean[] readColumns) {
        String text = digest.text();
        StatementModifiers modifiers = StatementModifiers.strip(digest.parseText());
        String parseText = modifiers.parseText();
        QueryPlanner queries = new QueryPlanner(rules, columns, schema, text, modifiers.found());
        try {
            switch (first) {
                case "SELECT":
                case "WITH":
                case "": {
                    Matcher lock = LOCKING.matcher(parseText);
                    boolean locking = lock.find();
                    SqlNode node = parse(locking ? parseText.substring(0, lock.start()) : parseText);
                    return queries.select(node, locking);
                }
                case "INSERT":
                case "REPLACE": {
                    return insert(parseText, first.equals("REPLACE"), queries);
                }
                case "UPDATE":
                case "DELETE": {
                    Matcher limit = DML_LIMIT.matcher(parseText);
                    boolean limited = limit.find();
                    SqlNode node = parse(limited ? parseText.substring(0, limit.start()) : parseText);
                    if (node.getKind() == SqlKind.UPDATE) {
                        return queries.update((SqlUpdate) node, limited);
                    }
                    return node.getKind() == SqlKind.DELETE
                            ? queries.delete((SqlDelete) node, limited)
                            : new StatementClassifier(rules, schema, text).classify("not a single-table " + first);
                }
                default:
                    return new StatementClassifier(rules, schema, text).classify("not parsed");
            }
        } catch (SqlParseException e) {
            Planned catalog = first.equals("SELECT") ? new InformationSchemaPlanner(rules, text).planUnparsed() : null;
            if (catalog != null) {
                return catalog;
            }
            String message =
                    e.getMessage() == null ? "parse error" : e.getMessage().split("\n", 2)[0];
            Planned classified = new StatementClassifier(rules, schema, text).classify(message);
            // a locking read the parser cannot read still locks: it must run on the writer
            return LOCKING.matcher(parseText).find() ? classified.onWriter() : classified;
        } finally {
            readColumns[0] = queries.readColumns();
        }
    }

    /**
     * {@code planned} where it runs on one shard (a key that picks one, one hostgroup, one copy of a
     * broadcast table, every copy of one for a write: each holds all rows), else refused with {@code reason}.
     */
    private static Planned oneShardOnly(Planned planned, String reason) {
        Route route = planned.route();
        if (route instanceof Route.OneHostgroup
                || route instanceof Route.Session
                || route instanceof Route.Refuse
                || route instanceof Route.Broadcast) {
            return planned;
        }
        if (route instanceof Route.ByKey key && key.severalRefused() == null) {
            return new Planned(
                    planned.kind(),
                    planned.role(),
                    Route.ByKey.oneShardOnly(key.table(), key.slot(), reason),
                    planned.sql(),
                    planned.scatterSql(),
                    planned.merge());
        }
        return Planned.refuse(planned.kind(), reason);
    }

    private Planned insert(String parseText, boolean replace, QueryPlanner queries) throws SqlParseException {
        Matcher dup = ON_DUPLICATE.matcher(parseText);
        boolean upsert = dup.find();
        String assignments = upsert ? dup.group(1) : "";
        String head = upsert ? parseText.substring(0, dup.start()) : parseText;
        if (replace) {
            head = "INSERT " + head.substring("REPLACE".length()); // same length: parser columns still match
        }
        SqlNode node = parse(head);
        if (!(node instanceof SqlInsert insert)) {
            return Planned.refuse(StatementKind.INSERT, "unrecognized INSERT form");
        }
        Planned planned = queries.insert(insert, replace);
        if (upsert && planned.route() instanceof Route.SplitInsert split) {
            String key = split.table().keyed().column();
            if (Pattern.compile("(?i)(^|[ .`])" + Pattern.quote(key) + "`? =")
                    .matcher(assignments)
                    .find()) {
                return Planned.refuse(
                        StatementKind.INSERT,
                        "ON DUPLICATE KEY UPDATE of the sharding key " + key + " of "
                                + split.table().name() + " would move rows between shards");
            }
        }
        return planned;
    }

    /**
     * Calcite's parse of {@code sql}; a parse that reads a reserved word as a name is not MySQL's
     * reading of the text ({@link ReservedWords}) and fails like a syntax Calcite does not know.
     */
    static SqlNode parse(String sql) throws SqlParseException {
        SqlNode node = SqlParser.create(sql, PARSER).parseStmt();
        String misread = ReservedWords.misreadAsName(node, sql);
        if (misread != null) {
            throw new SqlParseException(
                    "MySQL syntax around " + misread + " that the parser reads as a name", null, null, null, null);
        }
        return node;
    }
}
