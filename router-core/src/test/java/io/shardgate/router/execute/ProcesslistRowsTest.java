package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.session.ProcesslistQuery;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcesslistRowsTest {
    private static final String LONG = "SELECT " + "x".repeat(200);
    private final List<SessionInfo> sessions = List.of(
            new SessionInfo(3, "app", "shop", "/127.0.0.1:5001", false, List.of(), 0, "Sleep", 12, null),
            new SessionInfo(1, "app", null, "/127.0.0.1:5002", false, List.of(), 1, "Query", 2, LONG),
            new SessionInfo(
                    2, "ops", "shop", "localhost/127.0.0.1:5003", false, List.of(), 0, "Query", 0, "SHOW PROCESSLIST"));

    @Test
    void showListsOwnSessionsByIdWithInfoCutAt100() {
        List<List<Object>> rows =
                ProcesslistRows.rows(ProcesslistQuery.parse("SHOW PROCESSLIST"), sessions, "app", false);
        assertThat(rows)
                .containsExactly(
                        Arrays.asList(
                                1L, "app", "127.0.0.1:5002", null, "Query", 2L, "executing", LONG.substring(0, 100)),
                        Arrays.asList(3L, "app", "127.0.0.1:5001", "shop", "Sleep", 12L, "", null));
        assertThat(ProcesslistRows.columns(ProcesslistQuery.parse("SHOW PROCESSLIST")))
                .extracting(TextResultSet.Column::name)
                .containsExactly("Id", "User", "Host", "db", "Command", "Time", "State", "Info");
    }

    @Test
    void fullShowsWholeInfoAndAdminSeesEveryone() {
        List<List<Object>> rows =
                ProcesslistRows.rows(ProcesslistQuery.parse("SHOW FULL PROCESSLIST"), sessions, "ops", true);
        assertThat(rows).extracting(r -> r.get(0)).containsExactly(1L, 2L, 3L);
        assertThat(rows.get(0).get(7)).isEqualTo(LONG);
    }

    @Test
    void selectFiltersProjectsAndOrders() {
        ProcesslistQuery q = ProcesslistQuery.parse(
                "SELECT user, id FROM information_schema.PROCESSLIST" + " WHERE command <> 'sleep' ORDER BY user DESC");
        assertThat(ProcesslistRows.rows(q, sessions, "ops", true))
                .containsExactly(List.of("ops", 2L), List.of("app", 1L));
        assertThat(ProcesslistRows.columns(q))
                .extracting(TextResultSet.Column::name)
                .containsExactly("USER", "ID");
    }

    @Test
    void nullNeverMatches() {
        ProcesslistQuery q = ProcesslistQuery.parse("SELECT id FROM information_schema.PROCESSLIST WHERE db <> 'x'");
        assertThat(ProcesslistRows.rows(q, sessions, "app", false)).containsExactly(List.of(3L));
    }

    @Test
    void ordersTextAsGeneralCiDoesForAscii() {
        assertThat(ProcesslistRows.compareUpper("A", "_")).isNegative();
        assertThat(ProcesslistRows.compareUpper("b", "_")).isNegative(); // '_' sorts after the letters
        assertThat(ProcesslistRows.compareUpper("a", "B")).isNegative();
        assertThat(ProcesslistRows.compareUpper("abc", "ABC")).isZero();
    }
}
