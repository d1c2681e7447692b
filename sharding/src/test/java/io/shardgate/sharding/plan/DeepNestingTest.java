package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Statements nested or chained deeply enough to overflow Calcite's recursive parser and the
 * visitors over its tree are refused with the reason before parsing, never a StackOverflowError;
 * statements just within the bounds are planned as usual.
 */
class DeepNestingTest {
    private final RuleSnapshot rules = Rules.resource("shop.yaml", 1);

    private Plan plan(String sql) {
        return new Planner().plan(Digest.of(sql), "shop", rules);
    }

    static String nestedSubqueries(int depth) {
        StringBuilder sql = new StringBuilder("SELECT status FROM orders WHERE customer_id = 1");
        for (int i = 0; i < depth; i++) {
            sql.insert(0, "SELECT * FROM (").append(") t").append(i);
        }
        return sql.toString();
    }

    static Stream<Arguments> tooDeep() {
        return Stream.of(
                Arguments.of(
                        "100k parentheses",
                        "SELECT status FROM orders WHERE customer_id = " + "(".repeat(100_000) + "1"
                                + ")".repeat(100_000),
                        "nested deeper than 200 parentheses (this one: 100000)"),
                Arguments.of(
                        "100k ORs",
                        "SELECT status FROM orders WHERE " + "customer_id = 1 OR ".repeat(100_000) + "customer_id = 2",
                        "more than 1000 operators such as OR, AND, UNION or + (this one: 100000)"),
                Arguments.of(
                        "10k UNIONs",
                        "SELECT status FROM orders" + " UNION ALL SELECT status FROM orders".repeat(10_000),
                        "(this one: 10000)"),
                Arguments.of("5000 nested subqueries", nestedSubqueries(5000), "(this one: 5000)"),
                Arguments.of(
                        "100k additions",
                        "SELECT status FROM orders WHERE customer_id = " + "1 + ".repeat(100_000) + "1",
                        "(this one: 100000)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tooDeep")
    void tooDeepIsRefusedWithTheReason(String what, String sql, String reason) {
        Route route = plan(sql).route();
        assertThat(route).isInstanceOf(Route.Refuse.class);
        Route.Refuse refuse = (Route.Refuse) route;
        assertThat(refuse.code().code()).isEqualTo(1235);
        assertThat(refuse.reason()).contains(reason);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withinBounds")
    void withinTheBoundsIsPlanned(String what, String sql) {
        assertThat(plan(sql).route()).isNotInstanceOf(Route.Refuse.class);
    }

    static Stream<Arguments> withinBounds() {
        return Stream.of(
                Arguments.of(
                        "200 parentheses",
                        "SELECT status FROM orders WHERE customer_id = " + "(".repeat(200) + "1" + ")".repeat(200)),
                Arguments.of(
                        "1000 ORs",
                        "SELECT status FROM orders WHERE " + "customer_id = 1 OR ".repeat(999) + "customer_id = 2"));
    }
}
