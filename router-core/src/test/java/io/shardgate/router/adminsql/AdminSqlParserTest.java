package io.shardgate.router.adminsql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdminSqlParserTest {
    @Test
    void readsTheSelectsClientLibrariesSendOnConnect() {
        // MySQL Connector/J 9's session set-up, abridged
        AdminStatement.Select select = (AdminStatement.Select)
                AdminSqlParser.parse(
                        "/* mysql-connector-j-9.4.0 */SELECT @@session.auto_increment_increment AS auto_increment_increment,"
                                + " @@character_set_client AS character_set_client, @@max_allowed_packet AS max_allowed_packet");
        assertThat(select.table()).isNull();
        assertThat(select.items())
                .extracting(AdminStatement.Item::expression, AdminStatement.Item::alias)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "@@session.auto_increment_increment", "auto_increment_increment"),
                        org.assertj.core.groups.Tuple.tuple("@@character_set_client", "character_set_client"),
                        org.assertj.core.groups.Tuple.tuple("@@max_allowed_packet", "max_allowed_packet"));
        assertThat(AdminSqlParser.parse("select @@version_comment limit 1")).isInstanceOf(AdminStatement.Select.class);
        assertThat(AdminSqlParser.parse(
                        "set autocommit=1, sql_mode = concat(@@sql_mode,',STRICT_TRANS_TABLES'), x = 1 > 0"))
                .isInstanceOf(AdminStatement.Accepted.class);
    }

    @Test
    void readsTheDraftEditingStatements() {
        assertThat(AdminSqlParser.parse("INSERT INTO main.users (name, password) VALUES ('a', 'p'), ('b', NULL);"))
                .isEqualTo(new AdminStatement.Insert(
                        "users", List.of("name", "password"), List.of(List.of("a", "p"), Arrays.asList("b", null))));
        assertThat(AdminSqlParser.parse(
                        "UPDATE `hostgroups` SET writer = 'db:3306', id = -3 WHERE id = 10 AND user = \"sg\""))
                .isEqualTo(new AdminStatement.Update(
                        "hostgroups", Map.of("writer", "db:3306", "id", -3L), Map.of("id", 10L, "user", "sg")));
        assertThat(AdminSqlParser.parse("delete from query_rules where rule_id = 2 -- the old one"))
                .isEqualTo(new AdminStatement.Delete("query_rules", Map.of("rule_id", 2L)));
        assertThat(AdminSqlParser.parse("SELECT id, writer FROM runtime_hostgroups WHERE id = 10 LIMIT 5"))
                .isEqualTo(new AdminStatement.Select(
                        List.of(
                                new AdminStatement.Item("id", null, false, null),
                                new AdminStatement.Item("writer", null, false, null)),
                        "runtime_hostgroups",
                        Map.of("id", 10L),
                        5L));
        assertThat(AdminSqlParser.parse("INSERT INTO users VALUES ('it''s', 'a\\\\b', NULL)"))
                .isEqualTo(new AdminStatement.Insert("users", null, List.of(Arrays.asList("it's", "a\\b", null))));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "LOAD MYSQL SERVERS TO RUNTIME|true",
                "load everything to runtime|true",
                "LOAD MYSQL USERS FROM RUNTIME|false",
                "LOAD QUERY RULES FROM DISK|false"
            })
    void loadPublishesOrResetsTheDraft(String sql, boolean toRuntime) {
        assertThat(AdminSqlParser.parse(sql)).isEqualTo(new AdminStatement.Load(toRuntime));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "DROP TABLE users|admin statements are SELECT",
                "SELECT * FROM users WHERE|near 'end of statement'",
                "UPDATE users name = 'x'|near 'name'",
                "SELECT 1; SELECT 2|multi-statements",
                "INSERT INTO users VALUES ('unterminated|unterminated",
                "LOAD MYSQL USERS TO DISK|LOAD ... TO RUNTIME publishes"
            })
    void refusesWhatIsNotInTheGrammarWith1064(String sql, String message) {
        assertThatThrownBy(() -> AdminSqlParser.parse(sql))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1064))
                .hasMessageContaining(message);
    }

    @Test
    void readsPurgeCache() {
        assertThat(AdminSqlParser.parse("PURGE CACHE"))
                .isEqualTo(new AdminStatement.Purge(AdminStatement.PurgeScope.ALL, null, null, null));
        assertThat(AdminSqlParser.parse("purge cache all;"))
                .isEqualTo(new AdminStatement.Purge(AdminStatement.PurgeScope.ALL, null, null, null));
        assertThat(AdminSqlParser.parse("PURGE CACHE SCHEMA `Shop`"))
                .isEqualTo(new AdminStatement.Purge(AdminStatement.PurgeScope.SCHEMA, "Shop", null, null));
        assertThat(AdminSqlParser.parse("PURGE CACHE TABLE shop.orders"))
                .isEqualTo(new AdminStatement.Purge(AdminStatement.PurgeScope.TABLE, "shop", "orders", null));
        assertThat(AdminSqlParser.parse("PURGE CACHE TABLE `shop`.`orders`"))
                .isEqualTo(new AdminStatement.Purge(AdminStatement.PurgeScope.TABLE, "shop", "orders", null));
        assertThat(AdminSqlParser.parse("PURGE CACHE RULE 3"))
                .isEqualTo(new AdminStatement.Purge(AdminStatement.PurgeScope.RULE, null, null, 3));
        for (String bad : List.of(
                "PURGE CACHE TABLE orders",
                "PURGE CACHE RULE 0",
                "PURGE CACHE RULE x",
                "PURGE BINARY LOGS",
                "PURGE CACHE ALL x")) {
            assertThatThrownBy(() -> AdminSqlParser.parse(bad))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1064));
        }
    }

    @Test
    void readsTheServerStatusUpdate() {
        assertThat(
                        AdminSqlParser.parse(
                                "UPDATE runtime_servers SET status = 'OFFLINE_SOFT' WHERE hostgroup = 10 AND address = 'db1:3306'"))
                .isEqualTo(new AdminStatement.Update(
                        "runtime_servers",
                        Map.of("status", "OFFLINE_SOFT"),
                        Map.of("hostgroup", 10L, "address", "db1:3306")));
    }
}
