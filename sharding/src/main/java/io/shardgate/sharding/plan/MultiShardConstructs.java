package io.shardgate.sharding.plan;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * The allowlist of constructs a statement may contain when it runs on several shards: refuse by
 * default. Every operator and function call of the parsed statement must be one whose value on a
 * shard's rows is the value MySQL computes for those rows on one server — row-level, deterministic
 * and independent of which server and session evaluate it — or one of the aggregates the merge
 * combines exactly (COUNT, SUM, MIN, MAX, AVG; {@link MergePlanner} checks their forms). Anything
 * else (window functions, other aggregates, RAND(), CONNECTION_ID(), the clock, functions this list
 * does not know) yields the reason for ERROR 1235. Single-shard statements never come here: they run
 * untouched.
 *
 * <p>The lists are by design short of MySQL's: a function is added with a differential test that
 * shows its merged value equals MySQL's.
 */
final class MultiShardConstructs {
    /** Operators Calcite identifies by kind: comparisons, logic, arithmetic, CASE, CAST, query structure. */
    private static final Set<SqlKind> OPERATORS = EnumSet.of(
            SqlKind.AS,
            SqlKind.DESCENDING,
            SqlKind.NULLS_FIRST,
            SqlKind.NULLS_LAST,
            SqlKind.SELECT,
            SqlKind.ORDER_BY,
            SqlKind.JOIN,
            SqlKind.UNION,
            SqlKind.EXISTS,
            SqlKind.IN,
            SqlKind.NOT_IN,
            SqlKind.SCALAR_QUERY,
            SqlKind.AND,
            SqlKind.OR,
            SqlKind.NOT,
            SqlKind.EQUALS,
            SqlKind.NOT_EQUALS,
            SqlKind.LESS_THAN,
            SqlKind.GREATER_THAN,
            SqlKind.LESS_THAN_OR_EQUAL,
            SqlKind.GREATER_THAN_OR_EQUAL,
            SqlKind.IS_NULL,
            SqlKind.IS_NOT_NULL,
            SqlKind.IS_TRUE,
            SqlKind.IS_NOT_TRUE,
            SqlKind.IS_FALSE,
            SqlKind.IS_NOT_FALSE,
            SqlKind.BETWEEN,
            SqlKind.LIKE,
            SqlKind.PLUS,
            SqlKind.MINUS,
            SqlKind.TIMES,
            SqlKind.DIVIDE,
            SqlKind.MOD,
            SqlKind.MINUS_PREFIX,
            SqlKind.PLUS_PREFIX,
            SqlKind.CASE,
            SqlKind.CAST,
            SqlKind.COALESCE,
            SqlKind.NULLIF,
            SqlKind.TRIM,
            SqlKind.FLOOR,
            SqlKind.CEIL,
            SqlKind.EXTRACT,
            SqlKind.POSITION,
            SqlKind.ROW,
            SqlKind.VALUES);

    /** The aggregates the merge combines exactly. */
    private static final Set<String> MERGED_AGGREGATES = Set.of("COUNT", "SUM", "MIN", "MAX", "AVG");

    /** Aggregates MySQL has that the merge does not combine: named as such in the refusal. */
    private static final Set<String> OTHER_AGGREGATES = Set.of(
            "BIT_AND",
            "BIT_OR",
            "BIT_XOR",
            "GROUP_CONCAT",
            "STD",
            "STDDEV",
            "STDDEV_POP",
            "STDDEV_SAMP",
            "VARIANCE",
            "VAR_POP",
            "VAR_SAMP",
            "JSON_ARRAYAGG",
            "JSON_OBJECTAGG",
            "ANY_VALUE",
            "LISTAGG",
            "COLLECT",
            "EVERY",
            "SOME");

    /**
     * Row-level deterministic functions whose value does not depend on the server or the session
     * beyond the variables the router aligns on every connection (time_zone, sql_mode, character
     * set). Locale-dependent names (DAYNAME, MONTHNAME follow lc_time_names) and the clock are not here.
     */
    private static final Set<String> FUNCTIONS = Set.of(
            // strings
            "ASCII",
            "BIN",
            "BIT_LENGTH",
            "CHAR_LENGTH",
            "CHARACTER_LENGTH",
            "CONCAT",
            "CONCAT_WS",
            "ELT",
            "FIELD",
            "FIND_IN_SET",
            "HEX",
            "INSTR",
            "LCASE",
            "LEFT",
            "LENGTH",
            "LOCATE",
            "LOWER",
            "LPAD",
            "LTRIM",
            "MID",
            "OCT",
            "OCTET_LENGTH",
            "ORD",
            "REPEAT",
            "REPLACE",
            "REVERSE",
            "RIGHT",
            "RPAD",
            "RTRIM",
            "SPACE",
            "STRCMP",
            "SUBSTR",
            "SUBSTRING",
            "SUBSTRING_INDEX",
            "UCASE",
            "UNHEX",
            "UPPER",
            "TO_BASE64",
            "FROM_BASE64",
            "MD5",
            "SHA1",
            "SHA",
            "SHA2",
            "CRC32",
            // numbers
            "ABS",
            "ACOS",
            "ASIN",
            "ATAN",
            "ATAN2",
            "CEIL",
            "CEILING",
            "CONV",
            "COS",
            "COT",
            "DEGREES",
            "EXP",
            "FLOOR",
            "LN",
            "LOG",
            "LOG10",
            "LOG2",
            "MOD",
            "PI",
            "POW",
            "POWER",
            "RADIANS",
            "ROUND",
            "SIGN",
            "SIN",
            "SQRT",
            "TAN",
            "TRUNCATE",
            "GREATEST",
            "LEAST",
            "BIT_COUNT",
            // control flow
            "IF",
            "IFNULL",
            "NULLIF",
            "COALESCE",
            "ISNULL",
            // the session's schema: every shard connection uses it, under the same name
            "DATABASE",
            "SCHEMA",
            // dates and times of a value (not of the clock)
            "ADDDATE",
            "ADDTIME",
            "CONVERT_TZ",
            "DATE",
            "DATE_ADD",
            "DATE_SUB",
            "DATE_FORMAT",
            "DATEDIFF",
            "DAY",
            "DAYOFMONTH",
            "DAYOFWEEK",
            "DAYOFYEAR",
            "FROM_DAYS",
            "FROM_UNIXTIME",
            "HOUR",
            "LAST_DAY",
            "MAKEDATE",
            "MAKETIME",
            "MICROSECOND",
            "MINUTE",
            "MONTH",
            "PERIOD_ADD",
            "PERIOD_DIFF",
            "QUARTER",
            "SEC_TO_TIME",
            "SECOND",
            "STR_TO_DATE",
            "SUBDATE",
            "SUBTIME",
            "TIME",
            "TIME_FORMAT",
            "TIME_TO_SEC",
            "TIMEDIFF",
            "TIMESTAMP",
            "TIMESTAMPADD",
            "TIMESTAMPDIFF",
            "TO_DAYS",
            "TO_SECONDS",
            "WEEK",
            "WEEKDAY",
            "WEEKOFYEAR",
            "YEAR",
            "YEARWEEK",
            // JSON values
            "JSON_EXTRACT",
            "JSON_UNQUOTE",
            "JSON_OBJECT",
            "JSON_ARRAY",
            "JSON_CONTAINS",
            "JSON_LENGTH",
            "JSON_TYPE",
            "JSON_VALID",
            "JSON_KEYS",
            "JSON_QUOTE",
            "JSON_VALUE",
            // network addresses
            "INET_ATON",
            "INET_NTOA",
            "INET6_ATON",
            "INET6_NTOA",
            "IS_IPV4",
            "IS_IPV6");

    /** Functions of the clock: each shard reads its own, at its own moment; MySQL reads one. */
    private static final Set<String> CLOCK = Set.of(
            "NOW",
            "CURRENT_TIMESTAMP",
            "LOCALTIME",
            "LOCALTIMESTAMP",
            "CURDATE",
            "CURRENT_DATE",
            "CURTIME",
            "CURRENT_TIME",
            "SYSDATE",
            "UTC_DATE",
            "UTC_TIME",
            "UTC_TIMESTAMP",
            "UNIX_TIMESTAMP");

    private MultiShardConstructs() {}

    /** The first construct of {@code statement} not on the allowlist, as a refusal reason; null when none. */
    static String refusal(SqlNode statement) {
        if (statement == null) {
            return null;
        }
        Finder finder = new Finder();
        try {
            statement.accept(finder);
        } catch (Refused r) {
            return r.getMessage();
        }
        return null;
    }

    private static final class Finder extends SqlBasicVisitor<Void> {
        @Override
        public Void visit(SqlCall call) {
            check(call);
            return super.visit(call);
        }

        private static void check(SqlCall call) {
            SqlOperator op = call.getOperator();
            if (op == null) {
                return; // Calcite's own structural nodes (ORDER BY, JOIN...)
            }
            SqlKind kind = call.getKind();
            String name = op.getName().toUpperCase(Locale.ROOT);
            if (kind == SqlKind.OVER || kind == SqlKind.WINDOW || op.requiresOver()) {
                throw new Refused("window function " + windowName(call) + " OVER (...) on several shards: each"
                        + " shard would compute it over its own rows only");
            }
            if (kind == SqlKind.FILTER || kind == SqlKind.WITHIN_GROUP || kind == SqlKind.WITHIN_DISTINCT) {
                throw new Refused(kind.sql + " clause of an aggregate on several shards");
            }
            if (MERGED_AGGREGATES.contains(name)) {
                return;
            }
            if (op.isAggregator() || OTHER_AGGREGATES.contains(name)) {
                throw new Refused("aggregate " + name + "() on several shards: the router does not merge it");
            }
            if (CLOCK.contains(name)) {
                throw new Refused(name + "() on several shards: each shard reads its own clock (pass the time"
                        + " as a literal)");
            }
            if (FUNCTIONS.contains(name)) {
                return;
            }
            if (name.equals("LAST_INSERT_ID")) {
                throw new Refused("LAST_INSERT_ID() on several shards: each backend connection has its own; bind the"
                        + " value as a parameter (getGeneratedKeys() or SELECT LAST_INSERT_ID() give it)");
            }
            if (OPERATORS.contains(kind) && kind != SqlKind.OTHER_FUNCTION) {
                return;
            }
            if (kind == SqlKind.OTHER && name.equals("||")) {
                throw new Refused("the || operator on several shards (MySQL reads it as OR or as CONCAT by sql_mode)");
            }
            throw new Refused(
                    (kind == SqlKind.OTHER_FUNCTION || op.getSyntax().name().startsWith("FUNCTION")
                                    ? "function " + name + "()"
                                    : "operator " + name)
                            + " on several shards: not on the list of constructs whose merged result is known to equal"
                            + " MySQL's");
        }

        private static String windowName(SqlCall call) {
            if (call.getKind() == SqlKind.OVER && call.operandCount() > 0 && call.operand(0) instanceof SqlCall f) {
                return f.getOperator().getName().toUpperCase(Locale.ROOT) + "()";
            }
            return call.getOperator().getName().toUpperCase(Locale.ROOT) + "()";
        }
    }

    /** Stops the walk at the first construct not on the list. */
    private static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }
}
