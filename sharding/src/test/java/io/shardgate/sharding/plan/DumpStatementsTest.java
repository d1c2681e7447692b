package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import org.junit.jupiter.api.Test;

/** What mariadb-dump sends, and what its dump file holds, as the planner routes it. */
class DumpStatementsTest {
    private static final RuleSnapshot SHOP = Rules.resource("shop.yaml", 1);

    private static Plan plan(String sql) {
        return new Planner().plan(Digest.of(sql), "shop", SHOP);
    }

    @Test
    void executableCommentsAreReadAsCode() {
        assertThat(plan("/*!40000 ALTER TABLE `orders` DISABLE KEYS */").route())
                .isEqualTo(new Route.Broadcast(java.util.List.of(10, 20), true));
        assertThat(plan("SELECT /*!40001 SQL_NO_CACHE */ `id`, `customer_id` FROM `orders`")
                        .route())
                .isInstanceOf(Route.Scatter.class);
    }

    @Test
    void definitionsComeFromAnyShardOfTheTable() {
        assertThat(plan("SHOW CREATE TABLE `orders`").route())
                .isEqualTo(new Route.Broadcast(java.util.List.of(10, 20), false));
        assertThat(plan("SHOW FIELDS FROM `orders`").route())
                .isEqualTo(new Route.Broadcast(java.util.List.of(10, 20), false));
    }

    @Test
    void triggerOnAShardedTableIsRefused() {
        Route route = plan("/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER orders_bi"
                        + " BEFORE INSERT ON orders FOR EACH ROW SET NEW.status = 'new' */")
                .route();
        assertThat(route).isInstanceOf(Route.Refuse.class);
        assertThat(((Route.Refuse) route).reason()).contains("orders");
    }
}
