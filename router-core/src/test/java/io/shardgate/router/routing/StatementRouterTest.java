package io.shardgate.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.key.KeyGenerator;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link StatementRouter} as a table: statement, session, expected decision (rendered by {@link
 * #describe}), one row per branch. No server, no Netty: the plan comes from the real planner.
 */
class StatementRouterTest {
    private static final String RULES = """
            hostgroups: [10, 20, 30]
            schemas:
              - name: shop
                default_hostgroup: 10
                tables:
                  - {name: orders, strategy: hash, column: customer_id, buckets: 1024, hostgroups: {10: "0-511", 20: "512-1023"}}
                  - {name: sbtest1, strategy: table, hostgroup: 20}
                  - {name: countries, strategy: broadcast}
                  - {name: members, strategy: hash, column: id, buckets: 1024, hostgroups: {10: "0-511", 20: "512-1023"}, key_generation: snowflake}
                  - {name: ledger, strategy: range, column: id, ranges: [{below: 1000, hostgroup: 10}, {below: 2000, hostgroup: 20}]}
              - name: plain
                default_hostgroup: 30
            query_rules:
              - {match_digest: "FOR UPDATE$", role: writer}
              - {match_digest: "^SELECT .* FROM `?reports", destination_hostgroup: 30}
              - {match_digest: "^SELECT .* FROM `?audit", multiplex: false}
              - {user: batch, match_digest: "^DELETE", error: "batch may not delete"}
            """;
    private static final RuleSnapshot SNAPSHOT = snapshot();
    private static final Planner PLANNER = new Planner();

    /** A session in {@code shop} holding nothing, outside any transaction. */
    private static final View IDLE =
            new View("shop", Set.of(), false, List.of(), Set.of(), 0, PreviousStatement.UNKNOWN, Map.of());

    static Stream<Arguments> decisions() {
        return Stream.of(
                row(
                        "a query rule's error refuses the statement",
                        "batch",
                        IDLE,
                        "DELETE FROM orders WHERE customer_id = 1",
                        "Refuse 1148 42000 batch may not delete"),
                row(
                        "a query rule's destination takes the text as it is, unplanned",
                        "app",
                        IDLE,
                        "SELECT * FROM reports WHERE id = 1",
                        "Single hg30 verbatim kind=null role=null"),
                row(
                        "a point select on a table-strategy table: its hostgroup, the client's text",
                        "app",
                        IDLE,
                        "SELECT c FROM sbtest1 WHERE id = 42",
                        "Single hg20 verbatim kind=SELECT role=READER reads"),
                row(
                        "a query rule's role overrides the planner's",
                        "app",
                        IDLE,
                        "SELECT c FROM sbtest1 WHERE id = 42 FOR UPDATE",
                        "Single hg20 verbatim kind=SELECT role=WRITER reads"),
                row(
                        "a query rule turning multiplexing off is carried to the executor",
                        "app",
                        IDLE.in("plain"),
                        "SELECT * FROM audit WHERE id = 1",
                        "Single hg30 verbatim kind=SELECT role=READER multiplexOff reads"),
                row(
                        "an equality on the hash key goes to the key's shard",
                        "app",
                        IDLE,
                        "SELECT * FROM orders WHERE customer_id = 42",
                        "Single hg10 verbatim kind=SELECT role=READER reads"),
                row(
                        "a write on one shard does not read",
                        "app",
                        IDLE,
                        "UPDATE orders SET note = 'x' WHERE customer_id = 42",
                        "Single hg10 verbatim kind=UPDATE role=WRITER"),
                row(
                        "LOCK TABLES of tables the home hostgroup holds whole runs there",
                        "app",
                        IDLE,
                        "LOCK TABLES unlisted WRITE",
                        "OnHome"),
                row(
                        "LOCK TABLES of sharded, broadcast and other tables: each hostgroup locks those it holds",
                        "app",
                        IDLE,
                        "LOCK TABLES `orders` READ /*!32311 LOCAL */, countries AS c WRITE, sbtest1 READ, shop.unlisted"
                                + " WRITE",
                        // countries is copied to the hostgroups the schema uses: 10 and 20
                        "LockEverywhere {10=LOCK TABLES `orders` READ LOCAL, countries AS c WRITE, shop.unlisted WRITE,"
                                + " 20=LOCK TABLES `orders` READ LOCAL, countries AS c WRITE, sbtest1 READ}"),
                row(
                        "UNLOCK TABLES goes to every hostgroup the session holds",
                        "app",
                        IDLE.holding(10, 20),
                        "UNLOCK TABLES",
                        "UnlockEverywhere hg10,hg20"),
                row(
                        "UNLOCK TABLES holding only the home hostgroup",
                        "app",
                        IDLE.holding(10),
                        "UNLOCK TABLES",
                        "OnHome"),
                row(
                        "a read of a broadcast table: the first copy when the session holds none",
                        "app",
                        IDLE,
                        "SELECT * FROM countries",
                        "Single hg10 verbatim kind=SELECT role=READER reads"),
                row(
                        "a read of a broadcast table: the copy whose connection the session holds",
                        "app",
                        IDLE.holding(20),
                        "SELECT * FROM countries",
                        "Single hg20 verbatim kind=SELECT role=READER reads"),
                row(
                        "a multi-row INSERT whose rows all land on one shard: the client's text",
                        "app",
                        IDLE,
                        "INSERT INTO orders (customer_id, note) VALUES (42, 'a'), (42, 'b')",
                        "Single hg10 verbatim kind=INSERT role=WRITER"),
                row(
                        "a table that generates keys, the key given: one shard, the SQL the plan renders for it",
                        "app",
                        IDLE,
                        "INSERT INTO members (id, name) VALUES (42, 'a')",
                        "Single hg10 sql=[INSERT INTO members (id, name) VALUES (42, 'a')] kind=INSERT role=WRITER"),
                row(
                        "a key that maps to no hostgroup is refused with the reason",
                        "app",
                        IDLE,
                        "INSERT INTO ledger (id, v) VALUES (5000, 'a')",
                        "Refuse 1235 42000 This version of Shardgate doesn't yet support 'row 1 of INSERT INTO ledger:"
                                + " sharding key id = 5000 maps to no hostgroup'"),
                row(
                        "a statement the planner refuses in a sharded schema is refused, not guessed",
                        "app",
                        IDLE,
                        "SELECT * FROM orders o JOIN members m ON o.customer_id = m.id",
                        "Refuse 1235 42000 This version of Shardgate doesn't yet support 'join of orders and members"
                                + " is not in one binding group'"),
                row(
                        "a statement the planner refuses runs unchanged where no sharding is involved",
                        "app",
                        IDLE.in("plain"),
                        "CALL refresh_totals()",
                        "Single hg30 verbatim kind=OTHER role=WRITER"),
                row(
                        "no key: every shard, the results merged",
                        "app",
                        IDLE,
                        "SELECT * FROM orders",
                        "Scatter hg10,hg20 SELECT"),
                row("a write on every shard", "app", IDLE, "DELETE FROM orders", "Scatter hg10,hg20 DELETE writes"),
                row(
                        "sql_select_limit would cap each shard: a merged SELECT is refused under it",
                        "app",
                        IDLE.with("sql_select_limit", "3"),
                        "SELECT * FROM orders",
                        "Refuse 1235 42000 This version of Shardgate doesn't yet support 'sql_select_limit other than"
                                + " DEFAULT for a SELECT on several shards (each shard would apply it)'"),
                row(
                        "sql_select_limit back at DEFAULT: merged",
                        "app",
                        IDLE.with("sql_select_limit", "DEFAULT"),
                        "SELECT * FROM orders",
                        "Scatter hg10,hg20 SELECT"),
                row(
                        "sql_select_limit on one shard: the shard applies it as MySQL would",
                        "app",
                        IDLE.with("sql_select_limit", "3"),
                        "SELECT * FROM orders WHERE customer_id = 42",
                        "Single hg10 verbatim kind=SELECT role=READER reads"),
                row(
                        "div_precision_increment: refused only where the merge divides",
                        "app",
                        IDLE.with("div_precision_increment", "6"),
                        "SELECT AVG(total) FROM orders",
                        "Refuse 1235 42000 This version of Shardgate doesn't yet support 'div_precision_increment other"
                                + " than DEFAULT for AVG or arithmetic merged from several shards'"),
                row(
                        "div_precision_increment with a merge that does not divide",
                        "app",
                        IDLE.with("div_precision_increment", "6"),
                        "SELECT MAX(total) FROM orders",
                        "Scatter hg10,hg20 SELECT"),
                row(
                        "max_sort_length: refused where the merge compares",
                        "app",
                        IDLE.with("max_sort_length", "@m"),
                        "SELECT note FROM orders ORDER BY note",
                        "Refuse 1235 42000 This version of Shardgate doesn't yet support 'max_sort_length other than"
                                + " DEFAULT for ORDER BY, GROUP BY, DISTINCT or aggregates merged from several shards'"),
                row(
                        "a write is not a merged SELECT",
                        "app",
                        IDLE.with("sql_select_limit", "3"),
                        "DELETE FROM orders",
                        "Scatter hg10,hg20 DELETE writes"),
                row(
                        "a key the router generates: even one target is answered by the merge (the OK carries the key)",
                        "app",
                        IDLE,
                        "INSERT INTO members (name) VALUES ('a')",
                        "Scatter hg20 INSERT writes generated=1001"),
                row(
                        "several shards and session effects: refused, they would land on one shard only",
                        "app",
                        IDLE,
                        // rows for hg10 and hg20; LAST_INSERT_ID(expr) sets the session's value
                        "INSERT INTO orders (customer_id, note) VALUES (42, LAST_INSERT_ID(7)), (2, 'b')",
                        "Refuse 1235 42000 This version of Shardgate doesn't yet support 'a statement on several"
                                + " hostgroups that changes session state'"),
                row("SET runs on the home hostgroup", "app", IDLE, "SET sql_mode = 'ANSI'", "OnHome"),
                row("BEGIN with nothing to end: the router answers it", "app", IDLE, "BEGIN", "DeclareTransaction"),
                row(
                        "START TRANSACTION READ ONLY: declared, and the OK says read-only",
                        "app",
                        IDLE,
                        "START TRANSACTION READ ONLY",
                        "DeclareTransaction readOnly"),
                row(
                        "a BEGIN the router cannot vouch for goes to the server, which judges it (mtr main.commit)",
                        "app",
                        IDLE,
                        "START TRANSACTION READ ONLY, READ WRITE",
                        "OnHome beginsTransaction"),
                row("BEGIN WORK: declared", "app", IDLE, "BEGIN WORK", "DeclareTransaction"),
                row(
                        "START TRANSACTION READ WRITE: declared",
                        "app",
                        IDLE,
                        "START TRANSACTION READ WRITE",
                        "DeclareTransaction"),
                row(
                        "lower case and spacing do not matter",
                        "app",
                        IDLE,
                        "start   transaction read write",
                        "DeclareTransaction"),
                row("lower case begin work", "app", IDLE, "begin work", "DeclareTransaction"),
                row("lower case read only", "app", IDLE, "start transaction read only", "DeclareTransaction readOnly"),
                row(
                        "a consistent snapshot is taken at the START itself",
                        "app",
                        IDLE,
                        "START TRANSACTION WITH CONSISTENT SNAPSHOT",
                        "OnHome beginsTransaction"),
                row(
                        "BEGIN inside an open transaction commits it: runs now",
                        "app",
                        IDLE.open(20),
                        "BEGIN",
                        "OnHome beginsTransaction"),
                row(
                        "BEGIN under LOCK TABLES releases them: runs now",
                        "app",
                        IDLE.pinned(PinReason.LOCK_TABLES),
                        "BEGIN",
                        "OnHome beginsTransaction"),
                row(
                        "COMMIT of a transaction only the router declared",
                        "app",
                        IDLE.declared(),
                        "COMMIT",
                        "EndUnopened"),
                row(
                        "COMMIT AND CHAIN leaves a transaction behind: runs",
                        "app",
                        IDLE.declared(),
                        "COMMIT AND CHAIN",
                        "EndTransaction hg10"),
                row(
                        "COMMIT with no transaction open anywhere: the home hostgroup",
                        "app",
                        IDLE,
                        "COMMIT",
                        "EndTransaction hg10"),
                row(
                        "COMMIT of a transaction on the home hostgroup only",
                        "app",
                        IDLE.open(10),
                        "COMMIT",
                        "EndTransaction hg10"),
                row(
                        "COMMIT of a transaction that reached one other hostgroup: there alone",
                        "app",
                        IDLE.open(20),
                        "ROLLBACK",
                        "EndTransaction hg20"),
                row(
                        "COMMIT of a transaction on several hostgroups: each, the home one last",
                        "app",
                        IDLE.open(10, 20),
                        "COMMIT",
                        "EndEverywhere hg20,hg10"),
                row(
                        "SAVEPOINT of a transaction on two other hostgroups: both",
                        "app",
                        IDLE.open(30, 20),
                        "SAVEPOINT s1",
                        "EndEverywhere hg30,hg20"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decisions")
    void decides(String comment, String user, View session, String sql, String expected) {
        assertThat(describe(decide(user, session, sql))).as(comment).isEqualTo(expected);
    }

    /** What the router answers itself, as QueryRouter asks: with the statement's digest. */
    private static Decision answeredLocally(String sql, SessionView session) {
        return StatementRouter.answeredLocally(Digest.of(sql), sql, session);
    }

    @Test
    void answersExplainShardgateItself() {
        assertThat(answeredLocally("  explain shardgate SELECT * FROM orders", IDLE))
                .isEqualTo(new Decision.Explain("SELECT * FROM orders"));
        assertThat(answeredLocally("EXPLAIN SELECT * FROM orders", IDLE)).isNull();
    }

    @Test
    void answersRowCountOnlyWhenTheRouterKnowsIt() {
        View merged = IDLE.afterAMerge(7);
        assertThat(answeredLocally("SELECT ROW_COUNT()", merged)).isEqualTo(new Decision.ValueRow("ROW_COUNT()", 7));
        assertThat(answeredLocally(" select row_count ( ) AS `n` ;", merged)).isEqualTo(new Decision.ValueRow("n", 7));
        assertThat(answeredLocally("SELECT ROW_COUNT()", IDLE)).isNull();
        assertThat(answeredLocally("SELECT ROW_COUNT() + 1", merged)).isNull();
        assertThat(answeredLocally("SELECT FOUND_ROWS()", merged)).isNull();
    }

    @Test
    void answersLastInsertIdOnlyWhileTheRouterHoldsIt() {
        View generated =
                new View("shop", Set.of(), false, List.of(), Set.of(), 1001, PreviousStatement.UNKNOWN, Map.of());
        assertThat(answeredLocally("SELECT LAST_INSERT_ID() AS id", generated))
                .isEqualTo(new Decision.ValueRow("id", 1001));
        assertThat(answeredLocally("SELECT LAST_INSERT_ID()", IDLE)).isNull();
        assertThat(answeredLocally("SELECT * FROM orders", generated)).isNull();
    }

    @Test
    void aQueryRuleThatDecidesNeedsNoPlan() {
        assertThat(StatementRouter.plans(match("app", "SELECT * FROM reports"))).isFalse();
        assertThat(StatementRouter.plans(match("batch", "DELETE FROM orders"))).isFalse();
        assertThat(StatementRouter.plans(match("app", "SELECT * FROM orders"))).isTrue();
    }

    private static Decision decide(String user, View session, String sql) {
        Digest digest = Digest.of(sql);
        QueryRuleMatch rule = SNAPSHOT.matchQueryRules(user, session.schema(), digest.text());
        Plan plan = StatementRouter.plans(rule) ? PLANNER.plan(digest, session.schema(), SNAPSHOT) : null;
        return StatementRouter.decide(StatementFacts.of(digest, rule, plan), SNAPSHOT, session, keys());
    }

    private static QueryRuleMatch match(String user, String sql) {
        return SNAPSHOT.matchQueryRules(user, "shop", Digest.of(sql).text());
    }

    /** Keys 1001, 1002...: a fresh generator per statement, so the table reads the same in any order. */
    private static KeyGenerator keys() {
        long[] next = {1001};
        return count -> {
            long[] out = LongStream.range(next[0], next[0] + count).toArray();
            next[0] += count;
            return out;
        };
    }

    /** One line per decision: what the executor is told, in the order it reads it. */
    static String describe(Decision decision) {
        if (decision instanceof Decision.Refuse r) {
            return "Refuse " + r.code() + " " + r.sqlState() + " " + r.message();
        } else if (decision instanceof Decision.Single s) {
            return "Single hg" + s.hostgroup()
                    + (s.rewritten() == null
                            ? " verbatim"
                            : " sql=[" + s.rewritten().sql() + "]")
                    + " kind=" + s.kind() + " role=" + s.role()
                    + (s.multiplexOff() ? " multiplexOff" : "")
                    + (s.reads() ? " reads" : "");
        } else if (decision instanceof Decision.Scatter s) {
            long generated = s.values().firstGeneratedKey();
            return "Scatter " + hostgroups(s.targets().hostgroups()) + " "
                    + s.plan().kind()
                    + (s.writes() ? " writes" : "")
                    + (generated != 0 ? " generated=" + generated : "");
        } else if (decision instanceof Decision.OnHome h) {
            return "OnHome" + (h.beginsTransaction() ? " beginsTransaction" : "");
        } else if (decision instanceof Decision.DeclareTransaction d) {
            return "DeclareTransaction" + (d.readOnly() ? " readOnly" : "");
        } else if (decision instanceof Decision.EndUnopened) {
            return "EndUnopened";
        } else if (decision instanceof Decision.EndTransaction e) {
            return "EndTransaction hg" + e.hostgroup();
        } else if (decision instanceof Decision.EndEverywhere e) {
            return "EndEverywhere " + hostgroups(e.hostgroups());
        } else if (decision instanceof Decision.LockEverywhere l) {
            return "LockEverywhere " + new java.util.TreeMap<>(l.statements());
        } else if (decision instanceof Decision.UnlockEverywhere u) {
            return "UnlockEverywhere " + hostgroups(u.hostgroups());
        }
        return String.valueOf(decision);
    }

    private static String hostgroups(List<Integer> ids) {
        return ids.stream().map(id -> "hg" + id).collect(Collectors.joining(","));
    }

    private static Arguments row(String comment, String user, View session, String sql, String expected) {
        return Arguments.of(comment, user, session, sql, expected);
    }

    private static RuleSnapshot snapshot() {
        try {
            JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(RULES);
            List<Integer> hostgroups = new ArrayList<>();
            doc.path("hostgroups").forEach(n -> hostgroups.add(n.asInt()));
            List<JsonNode> schemas = new ArrayList<>();
            doc.path("schemas").forEach(schemas::add);
            List<JsonNode> rules = new ArrayList<>();
            doc.path("query_rules").forEach(rules::add);
            return RuleSnapshot.parse(1, hostgroups, schemas, rules);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A fixed session: what the live one would answer at that moment. */
    record View(
            String schema,
            Set<Integer> held,
            boolean transactionOnlyDeclared,
            List<Integer> transactionHostgroups,
            Set<PinReason> pins,
            long lastInsertId,
            long previousRowCount,
            Map<String, String> variables)
            implements SessionView {

        @Override
        public long previousFoundRows() {
            return PreviousStatement.UNKNOWN; // the router never knows it yet
        }

        @Override
        public boolean holdsConnection(int hostgroup) {
            return held.contains(hostgroup);
        }

        View in(String other) {
            return new View(
                    other,
                    held,
                    transactionOnlyDeclared,
                    transactionHostgroups,
                    pins,
                    lastInsertId,
                    previousRowCount,
                    variables);
        }

        View holding(Integer... hostgroups) {
            return new View(
                    schema,
                    Set.of(hostgroups),
                    transactionOnlyDeclared,
                    transactionHostgroups,
                    pins,
                    lastInsertId,
                    previousRowCount,
                    variables);
        }

        /** Transactions open on {@code hostgroups}, in the order the session used them (each holds its connection). */
        View open(Integer... hostgroups) {
            return new View(
                    schema,
                    Set.of(hostgroups),
                    false,
                    List.of(hostgroups),
                    pins,
                    lastInsertId,
                    previousRowCount,
                    variables);
        }

        View declared() {
            return new View(schema, held, true, transactionHostgroups, pins, lastInsertId, previousRowCount, variables);
        }

        View afterAMerge(long rowCount) {
            return new View(
                    schema,
                    held,
                    transactionOnlyDeclared,
                    transactionHostgroups,
                    pins,
                    lastInsertId,
                    rowCount,
                    variables);
        }

        View with(String name, String value) {
            Map<String, String> set = new java.util.LinkedHashMap<>(variables);
            set.put(name, name + " = " + value);
            return new View(
                    schema,
                    held,
                    transactionOnlyDeclared,
                    transactionHostgroups,
                    pins,
                    lastInsertId,
                    previousRowCount,
                    set);
        }

        View pinned(PinReason... reasons) {
            return new View(
                    schema,
                    held,
                    transactionOnlyDeclared,
                    transactionHostgroups,
                    Set.of(reasons),
                    lastInsertId,
                    previousRowCount,
                    variables);
        }
    }
}
