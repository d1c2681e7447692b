package io.shardgate.sharding.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class RuleSnapshotTest {
    private final RuleSnapshot rules = Rules.resource("shop.yaml", 7);

    @Test
    void parsesEveryStrategy() {
        SchemaRule shop = rules.schema("shop");
        assertThat(rules.version()).isEqualTo(7);
        assertThat(shop.defaultHostgroup()).isEqualTo(10);
        assertThat(shop.listed("orders").strategy()).isInstanceOf(HashStrategy.class);
        assertThat(shop.listed("ORDERS").name()).isEqualTo("orders");
        assertThat(shop.listed("sbtest1").strategy()).isEqualTo(new SingleStrategy(20));
        assertThat(shop.listed("events").strategy().hostgroups()).containsExactly(10, 20, 30);
        assertThat(shop.listed("countries").strategy()).isEqualTo(new BroadcastStrategy(List.of(10, 20, 30)));
        assertThat(shop.resolve("unlisted").strategy()).isEqualTo(new SingleStrategy(10));
        assertThat(shop.bound("orders", "order_items")).isTrue();
        assertThat(shop.bound("orders", "customers")).isFalse();
        assertThat(rules.queryRules()).hasSize(3);
    }

    @Test
    void hashPlacesByBucketRanges() {
        HashStrategy orders =
                (HashStrategy) rules.schema("shop").listed("orders").strategy();
        assertThat(orders.buckets()).isEqualTo(1024);
        assertThat(orders.hostgroupOfBucket(0)).isEqualTo(10);
        assertThat(orders.hostgroupOfBucket(511)).isEqualTo(10);
        assertThat(orders.hostgroupOfBucket(512)).isEqualTo(20);
        int bucket = KeyHash.bucket(42L, 1024);
        assertThat(orders.hostgroupOf(42L)).isEqualTo(bucket < 512 ? 10 : 20);
        // the text literal '42' and the integer 42 are one key for an integer column
        assertThat(orders.hostgroupOf("42")).isEqualTo(orders.hostgroupOf(42L));
        assertThat(orders.hostgroupOf(new java.math.BigDecimal("42.0"))).isEqualTo(orders.hostgroupOf(42L));
        assertThat(orders.hostgroupOf(new java.math.BigDecimal("42.5"))).isEqualTo(-1);
        assertThat(orders.hostgroupOf("42abc")).isEqualTo(-1);
        assertThat(orders.hostgroupOf(null)).isEqualTo(-1);
        HashStrategy sessions =
                (HashStrategy) rules.schema("shop").listed("sessions").strategy();
        assertThat(sessions.hostgroupOf(42L)).isEqualTo(-1);
        assertThat(sessions.hostgroupOf("abc")).isEqualTo(KeyHash.bucket("abc", 16) < 8 ? 10 : 20);
    }

    @Test
    void rangeBoundsAreLowerInclusiveUpperExclusive() {
        RangeStrategy events =
                (RangeStrategy) rules.schema("shop").listed("events").strategy();
        assertThat(events.hostgroupOf(Long.MIN_VALUE)).isEqualTo(10);
        assertThat(events.hostgroupOf(999_999L)).isEqualTo(10);
        assertThat(events.hostgroupOf(1_000_000L)).isEqualTo(20);
        assertThat(events.hostgroupOf(1_999_999L)).isEqualTo(20);
        assertThat(events.hostgroupOf(2_000_000L)).isEqualTo(30);
        assertThat(events.hostgroupsBetween(5L, 999_999L)).containsExactly(10);
        assertThat(events.hostgroupsBetween(5L, 1_000_000L)).containsExactly(10, 20);
        assertThat(events.hostgroupsBetween(1_500_000L, null)).containsExactly(20, 30);
        assertThat(events.hostgroupsBetween(null, null)).containsExactly(10, 20, 30);
        assertThat(events.hostgroupsBetween(7L, 3L)).isEmpty();
        assertThat(events.soleHostgroupBetween(5L, 999_999L)).isEqualTo(10);
        assertThat(events.soleHostgroupBetween(1_000_000L, 1_999_999L)).isEqualTo(20);
        assertThat(events.soleHostgroupBetween(2_000_000L, null)).isEqualTo(30);
        assertThat(events.soleHostgroupBetween(5L, 1_000_000L)).isEqualTo(RangeStrategy.SEVERAL_HOSTGROUPS);
        assertThat(events.soleHostgroupBetween(null, null)).isEqualTo(RangeStrategy.SEVERAL_HOSTGROUPS);
        assertThat(events.soleHostgroupBetween(7L, 3L)).isEqualTo(RangeStrategy.NO_HOSTGROUP);
    }

    @Test
    void boundedLastRangeLeavesHigherKeysUnplaced() throws InvalidRulesException {
        RuleSnapshot s = Rules.snapshot(
                Rules.yaml("hostgroups: [1, 2]\nschemas: [{name: s, default_hostgroup: 1, tables: [{name: t,"
                        + " strategy: range, column: id, ranges: [{below: 0, hostgroup: 1}, {below: 10,"
                        + " hostgroup: 2}]}]}]"),
                1);
        RangeStrategy t = (RangeStrategy) s.schema("s").listed("t").strategy();
        assertThat(t.hostgroupOf(-1L)).isEqualTo(1);
        assertThat(t.hostgroupOf(9L)).isEqualTo(2);
        assertThat(t.hostgroupOf(10L)).isEqualTo(-1);
        assertThat(t.hostgroupsBetween(10L, null)).isEmpty();
    }

    @Test
    void reportsEveryProblemWithItsPath() {
        String yaml = """
                hostgroups: [10, 20]
                schemas:
                  - name: shop
                    default_hostgroup: 99
                    colour: blue
                    tables:
                      - {name: a, strategy: hash, column: id, buckets: 8, hostgroups: {10: "0-3", 20: "3-5"}}
                      - {name: A, strategy: table, hostgroup: 10}
                      - {name: b, strategy: range, column: id, ranges: [{below: 10, hostgroup: 10}, {below: 5, hostgroup: 20}]}
                      - {name: c, strategy: range, column: id, ranges: [{hostgroup: 10}, {below: 5, hostgroup: 20}]}
                      - {name: d, strategy: modulo}
                      - {name: e, strategy: hash, column: id, key_type: float, buckets: 0, hostgroups: {10: "0"}}
                      - {name: f, strategy: table, hostgroup: 30}
                      - {name: g, strategy: broadcast, hostgroups: [10, 40]}
                      - {name: h, strategy: hash, column: id, buckets: 4, hostgroups: {10: "0-3"}}
                    binding_groups: [[a, h], [f, zz], [a]]
                  - {name: shop, default_hostgroup: 10}
                query_rules:
                  - {match_digest: "^SELECT (", destination_hostgroup: 10}
                  - {match_digest: "^SELECT", role: boss, destination_hostgroup: 77}
                  - {match_digest: "x"}
                """;
        assertThatThrownBy(() -> Rules.snapshot(Rules.yaml(yaml), 1))
                .isInstanceOfSatisfying(
                        InvalidRulesException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "schemas.shop.colour: unknown key (known: [binding_groups, default_hostgroup, name,"
                                                + " tables, transaction_mode])",
                                        "schemas.shop.default_hostgroup: unknown hostgroup 99 (known: [10, 20])",
                                        "schemas.shop.tables.a.hostgroups.20: bucket 3 is already mapped to hostgroup 10",
                                        "schemas.shop.tables.a.hostgroups: buckets 6-7 are not mapped to any hostgroup",
                                        "schemas.shop.tables.A: duplicate table (names are case-insensitive)",
                                        "schemas.shop.tables.b.ranges[1].below: 5 must be greater than the previous"
                                                + " range's 10 (ranges are ordered and must not overlap)",
                                        "schemas.shop.tables.c.ranges[0]: only the last range may omit 'below' (it is"
                                                + " unbounded)",
                                        "schemas.shop.tables.d.strategy: unknown strategy 'modulo' (table, hash, range,"
                                                + " broadcast)",
                                        "schemas.shop.tables.e.key_type: must be integer or string, not 'float'",
                                        "schemas.shop.tables.e.buckets: must be an integer from 1 to 65536",
                                        "schemas.shop.tables.f.hostgroup: unknown hostgroup 30 (known: [10, 20])",
                                        "schemas.shop.tables.g.hostgroups: unknown hostgroup 40 (known: [10, 20])",
                                        "schemas.shop.binding_groups[1]: table zz is not listed in tables",
                                        "schemas.shop.binding_groups[2]: must list at least two tables",
                                        "schemas[1]: duplicate schema 'shop'",
                                        "query_rules[0].match_digest: bad regex: Unclosed group at index 9",
                                        "query_rules[1].destination_hostgroup: unknown hostgroup 77 (known: [10, 20])",
                                        "query_rules[1].role: must be reader or writer, not 'boss'",
                                        "query_rules[2]: has no action (destination_hostgroup, role, cache_ttl_ms,"
                                                + " multiplex or error)"));
    }

    @Test
    void transactionModeIsBestEffortUnlessTwoPhaseIsNamed() throws InvalidRulesException {
        RuleSnapshot s = Rules.snapshot(
                Rules.yaml("hostgroups: [1, 2]\nschemas: [{name: a, default_hostgroup: 1},"
                        + " {name: b, default_hostgroup: 1, transaction_mode: two_phase},"
                        + " {name: c, default_hostgroup: 2, transaction_mode: BEST_EFFORT}]"),
                1);
        assertThat(s.schema("a").transactionMode()).isEqualTo(TransactionMode.BEST_EFFORT);
        assertThat(s.schema("b").transactionMode()).isEqualTo(TransactionMode.TWO_PHASE);
        assertThat(s.schema("c").transactionMode()).isEqualTo(TransactionMode.BEST_EFFORT);
        assertThat(s.schema("unlisted").transactionMode()).isEqualTo(TransactionMode.BEST_EFFORT);
        assertThatThrownBy(() -> Rules.snapshot(
                        Rules.yaml("hostgroups: [1]\nschemas: [{name: a, default_hostgroup: 1, transaction_mode: xa},"
                                + " {name: b, default_hostgroup: 1, transaction_mode: 2}]"),
                        1))
                .isInstanceOfSatisfying(
                        InvalidRulesException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "schemas.a.transaction_mode: 'xa' is not a transaction mode (best_effort or"
                                                + " two_phase)",
                                        "schemas.b.transaction_mode: must be a non-empty string"));
    }

    @Test
    void keyGenerationIsDeclaredOnKeyedTablesThatCanPlaceEveryId() throws InvalidRulesException {
        RuleSnapshot ok = Rules.snapshot(
                Rules.yaml("hostgroups: [1, 2]\nschemas: [{name: s, default_hostgroup: 1, tables: [{name: t,"
                        + " strategy: hash, column: id, buckets: 2, hostgroups: {1: \"0\", 2: \"1\"},"
                        + " key_generation: snowflake}, {name: u, strategy: range, column: id, ranges: [{below: 5,"
                        + " hostgroup: 1}, {hostgroup: 2}], key_generation: snowflake}, {name: v, strategy: hash,"
                        + " column: id, buckets: 2, hostgroups: {1: \"0-1\"}}]}]"),
                1);
        assertThat(ok.schema("s").listed("t").keyGeneration()).isEqualTo(KeyGeneration.SNOWFLAKE);
        assertThat(ok.schema("s").listed("u").generatesKeys()).isTrue();
        assertThat(ok.schema("s").listed("v").keyGeneration()).isEqualTo(KeyGeneration.NONE);
        String yaml = """
                hostgroups: [1, 2]
                schemas:
                  - name: s
                    default_hostgroup: 1
                    tables:
                      - {name: a, strategy: hash, column: k, key_type: string, buckets: 2, hostgroups: {1: "0-1"}, key_generation: snowflake}
                      - {name: b, strategy: range, column: id, ranges: [{below: 5, hostgroup: 1}], key_generation: snowflake}
                      - {name: c, strategy: hash, column: id, buckets: 2, hostgroups: {1: "0-1"}, key_generation: uuid}
                      - {name: d, strategy: table, hostgroup: 1, key_generation: snowflake}
                """;
        assertThatThrownBy(() -> Rules.snapshot(Rules.yaml(yaml), 1))
                .isInstanceOfSatisfying(
                        InvalidRulesException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "schemas.s.tables.a.key_generation: snowflake ids are 64-bit integers; key_type"
                                                + " must be integer",
                                        "schemas.s.tables.b.key_generation: snowflake ids grow with time, so the last"
                                                + " range must be unbounded (omit its 'below'), or generated keys would"
                                                + " fall outside every range",
                                        "schemas.s.tables.c.key_generation: must be snowflake or none, not 'uuid'",
                                        "schemas.s.tables.d.key_generation: unknown key (known: [hostgroup, name,"
                                                + " strategy])"));
    }

    @Test
    void keyCollationIsAStringKeysAndOneTheRouterKnows() throws InvalidRulesException {
        RuleSnapshot ok = Rules.snapshot(Rules.yaml("""
                        hostgroups: [1, 2]
                        schemas:
                          - name: s
                            default_hostgroup: 1
                            tables:
                              - {name: ci, strategy: hash, column: k, key_type: string, key_collation: utf8mb4_general_ci, buckets: 2, hostgroups: {1: "0", 2: "1"}}
                              - {name: bin, strategy: hash, column: k, key_type: string, buckets: 2, hostgroups: {1: "0", 2: "1"}}
                        """), 1);
        assertThat(((HashStrategy) ok.schema("s").listed("ci").strategy()).keyCollation())
                .isEqualTo(KeyCollation.GENERAL_CI);
        assertThat(((HashStrategy) ok.schema("s").listed("bin").strategy()).keyCollation())
                .isEqualTo(KeyCollation.BINARY);
        // 'a' and 'A' are one key of ci and two of bin: they cannot be a binding group
        assertThat(((HashStrategy) ok.schema("s").listed("ci").strategy())
                        .placesAlike((HashStrategy) ok.schema("s").listed("bin").strategy()))
                .isFalse();

        String yaml = """
                hostgroups: [1]
                schemas:
                  - name: s
                    default_hostgroup: 1
                    tables:
                      - {name: a, strategy: hash, column: k, key_type: string, key_collation: utf8mb4_unicode_ci, buckets: 2, hostgroups: {1: "0-1"}}
                      - {name: b, strategy: hash, column: id, key_collation: utf8mb4_general_ci, buckets: 2, hostgroups: {1: "0-1"}}
                """;
        assertThatThrownBy(() -> Rules.snapshot(Rules.yaml(yaml), 1))
                .isInstanceOfSatisfying(
                        InvalidRulesException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "schemas.s.tables.a.key_collation: must be one of binary, utf8mb4_general_ci,"
                                                + " not 'utf8mb4_unicode_ci'",
                                        "schemas.s.tables.b.key_collation: only for key_type: string"));
    }

    @Test
    void bindingGroupMembersMustBeShardedAlike() {
        String yaml = """
                hostgroups: [10, 20]
                schemas:
                  - name: s
                    default_hostgroup: 10
                    tables:
                      - {name: a, strategy: hash, column: id, buckets: 4, hostgroups: {10: "0-1", 20: "2-3"}}
                      - {name: b, strategy: hash, column: a_id, buckets: 4, hostgroups: {10: "0-2", 20: "3"}}
                      - {name: c, strategy: table, hostgroup: 10}
                    binding_groups: [[a, b, c]]
                """;
        assertThatThrownBy(() -> Rules.snapshot(Rules.yaml(yaml), 1))
                .isInstanceOfSatisfying(
                        InvalidRulesException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "schemas.s.binding_groups[0]: b (hash(a_id, 4 buckets on [10, 20])) is not sharded"
                                                + " like a (hash(id, 4 buckets on [10, 20]))",
                                        "schemas.s.binding_groups[0]: table c is not sharded by hash or range"));
    }

    @Test
    void queryRulesApplyInOrderUntilOneApplies() throws InvalidRulesException {
        String yaml = """
                hostgroups: [10, 20]
                schemas: []
                query_rules:
                  - {match_digest: "^SELECT", cache_ttl_ms: 100, apply: false}
                  - {user: app, match_digest: "FROM `?hot", destination_hostgroup: 20}
                  - {match_digest: "^SELECT", cache_ttl_ms: 5, multiplex: false}
                  - {schema: s, error: "never reached for SELECT"}
                """;
        RuleSnapshot s = Rules.snapshot(Rules.yaml(yaml), 1);
        assertThat(s.matchQueryRules("app", "s", "SELECT a FROM hot WHERE id = ?"))
                .isEqualTo(new QueryRuleMatch(List.of(0, 1), 20, null, 100L, null, null));
        assertThat(s.matchQueryRules("other", "s", "select a from hot"))
                .isEqualTo(new QueryRuleMatch(List.of(0, 2), null, null, 5L, false, null));
        assertThat(s.matchQueryRules("other", "s", "DELETE FROM hot"))
                .isEqualTo(new QueryRuleMatch(List.of(3), null, null, null, null, "never reached for SELECT"));
        assertThat(s.matchQueryRules("other", "t", "DELETE FROM hot")).isEqualTo(QueryRuleMatch.NONE);
    }
}
