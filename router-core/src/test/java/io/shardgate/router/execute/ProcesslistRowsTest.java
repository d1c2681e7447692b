package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.session.ProcesslistQuery;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcesslistRowsTest {
    private static final String LONG = "SELECT " + "x".repeat(200);
    private final List<SessionInfo> sessions = List.of(
            new SessionInfo(3, "app", "shop", "/127.0.0.1:5001", false, List.of(), 0, "Sleep", 12, null, 1, List.of()),
            new SessionInfo(1, "app", null, "/127.0.0.1:5002", false, List.of(), 1, "Query", 2, LONG, 5, List.of()),
            new SessionInfo(
                    2,
                    "ops",
                    "shop",
                    "localhost/127.0.0.1:5003",
                    false,
                    List.of(),
                    0,
                    "Query",
                    0,
                    "SHOW PROCESSLIST",
                    9,
                    List.of()));

    @Test
    void showListsOwnSessionsByIdWithInfoCutAt100() {
        List<List<Object>> rows = rows(ProcesslistQuery.parse("SHOW PROCESSLIST"), "app", false);
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
        List<List<Object>> rows = rows(ProcesslistQuery.parse("SHOW FULL PROCESSLIST"), "ops", true);
        assertThat(rows).extracting(r -> r.get(0)).containsExactly(1L, 2L, 3L);
        assertThat(rows.get(0).get(7)).isEqualTo(LONG);
    }

    @Test
    void selectFiltersProjectsAndOrders() {
        ProcesslistQuery q = ProcesslistQuery.parse(
                "SELECT user, id FROM information_schema.PROCESSLIST" + " WHERE command <> 'sleep' ORDER BY user DESC");
        assertThat(rows(q, "ops", true)).containsExactly(List.of("ops", 2L), List.of("app", 1L));
        assertThat(ProcesslistRows.columns(q))
                .extracting(TextResultSet.Column::name)
                .containsExactly("USER", "ID");
    }

    @Test
    void nullNeverMatches() {
        ProcesslistQuery q = ProcesslistQuery.parse("SELECT id FROM information_schema.PROCESSLIST WHERE db <> 'x'");
        assertThat(rows(q, "app", false)).containsExactly(List.of(3L));
    }

    @Test
    void countsTheRowsTheWhereKeepsAndComparesTheCount() {
        ProcesslistQuery q = ProcesslistQuery.parse("select count(*) = 1, COUNT(*), count(*)>=3 from"
                + " information_schema.processlist where state = \"executing\" and info <> 'x'");
        assertThat(rows(q, "ops", true)).containsExactly(List.of(0L, 2L, 0L));
        assertThat(rows(q, "app", false)).containsExactly(List.of(1L, 1L, 0L));
        assertThat(ProcesslistRows.columns(q))
                .containsExactly(
                        TextResultSet.Column.truth("count(*) = 1"),
                        TextResultSet.Column.count("COUNT(*)"),
                        TextResultSet.Column.truth("count(*)>=3"));
    }

    @Test
    void countsNothingAsOneRowOfZero() {
        ProcesslistQuery q =
                ProcesslistQuery.parse("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE user = 'nobody'");
        assertThat(rows(q, "ops", true)).containsExactly(List.of(0L));
    }

    @Test
    void aSessionsStatementOnABackendShowsThatThreadsState() {
        ProcesslistQuery q = ProcesslistQuery.parse(
                "SELECT id, state FROM information_schema.PROCESSLIST WHERE state = 'Waiting for table metadata lock'");
        assertThat(ProcesslistRows.rows(q, sessions, Map.of(1, "Waiting for table metadata lock")))
                .containsExactly(List.of(1L, "Waiting for table metadata lock"));
        assertThat(ProcesslistRows.rows(q, sessions, Map.of())).isEmpty();
    }

    private List<List<Object>> rows(ProcesslistQuery query, String user, boolean connectionAdmin) {
        return ProcesslistRows.rows(query, ProcesslistRows.visible(sessions, user, connectionAdmin), Map.of());
    }

    @Test
    void ordersTextAsGeneralCiDoesForAscii() {
        assertThat(ProcesslistRows.compareUpper("A", "_")).isNegative();
        assertThat(ProcesslistRows.compareUpper("b", "_")).isNegative(); // '_' sorts after the letters
        assertThat(ProcesslistRows.compareUpper("a", "B")).isNegative();
        assertThat(ProcesslistRows.compareUpper("abc", "ABC")).isZero();
    }
}
