package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.columns.TableColumns;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A string sharding key routes by its hash only when the column compares as the rule's key
 * collation does (schema tracking reports the column's collation); otherwise every statement on the
 * table is refused, naming the fix.
 */
class StringKeyCollationTest {
    private static final RuleSnapshot SHOP = Rules.resource("shop.yaml", 1);
    private final Planner planner = new Planner();

    private static ColumnCatalog tokenCollation(String collation) {
        return new ColumnCatalog(
                7,
                Map.of(
                        "shop.sessions",
                        new TableColumns.Known(List.of("token", "user_id"), Map.of("token", collation))));
    }

    @Test
    void binaryColumnRoutesByKey() {
        Plan plan = planner.plan(
                Digest.of("SELECT user_id FROM sessions WHERE token = 'abc'"),
                "shop",
                SHOP,
                tokenCollation("utf8mb4_bin"));

        assertThat(plan.route()).isInstanceOf(Route.ByKey.class);
        assertThat(plan.columnsVersion()).isEqualTo(7);
    }

    @Test
    void caseInsensitiveColumnUnderABinaryKeyIsRefusedNamingTheFix() {
        ColumnCatalog ci = tokenCollation("utf8mb4_general_ci");
        for (String sql : List.of(
                "SELECT user_id FROM sessions WHERE token = 'abc'",
                "SELECT COUNT(*) FROM sessions",
                "INSERT INTO sessions (token, user_id) VALUES ('K', 1)",
                "UPDATE sessions SET user_id = 2 WHERE token = 'k'",
                "DELETE FROM sessions WHERE token = 'k'")) {
            Plan plan = planner.plan(Digest.of(sql), "shop", SHOP, ci);

            assertThat(plan.route()).as(sql).isInstanceOf(Route.Refuse.class);
            assertThat(((Route.Refuse) plan.route()).reason())
                    .as(sql)
                    .isEqualTo("table shop.sessions is hashed by token with key_collation: binary, but the column's"
                            + " collation on the shards is utf8mb4_general_ci, under which keys hashed apart compare"
                            + " equal (rows could be missed or duplicated). Set the rule's key_collation to match"
                            + " (binary, utf8mb4_general_ci; existing rows must then be moved) or give the column a"
                            + " binary collation");
            // a fixed column re-plans it
            assertThat(plan.columnsVersion()).isEqualTo(7);
        }
    }

    @Test
    void untrackedTableIsTakenAsTheRuleSays() {
        Plan plan = planner.plan(
                Digest.of("SELECT user_id FROM sessions WHERE token = 'abc'"), "shop", SHOP, ColumnCatalog.EMPTY);

        assertThat(plan.route()).isInstanceOf(Route.ByKey.class);
    }
}
