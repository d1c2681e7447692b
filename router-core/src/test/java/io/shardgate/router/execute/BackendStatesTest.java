package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.router.backend.BackendThread;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.execute.BackendStates.ServerThread;
import io.shardgate.router.execute.BackendStates.ThreadRow;
import io.shardgate.router.frontend.SessionInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackendStatesTest {
    private static final BackendAddress ONE = new BackendAddress("127.0.0.1", 3307);
    private static final BackendAddress TWO = new BackendAddress("127.0.0.1", 3308);

    private static SessionInfo running(BackendThread... threads) {
        return new SessionInfo(
                5,
                "app",
                "shop",
                "/127.0.0.1:5000",
                false,
                List.of(),
                threads.length,
                "Query",
                1,
                "x",
                3,
                List.of(threads));
    }

    private static BackendThread thread(BackendAddress server, long id) {
        return new BackendThread(null, server, null, id);
    }

    @Test
    void readsTheThreadsOfOneServerInOneStatement() {
        assertThat(BackendStates.query(List.of(12L, 40L)))
                .isEqualTo("SELECT ID, COMMAND, STATE FROM information_schema.PROCESSLIST WHERE ID IN (12, 40)");
    }

    @Test
    void showsTheStateOfTheThreadRunningTheStatement() {
        SessionInfo s = running(thread(ONE, 12));
        assertThat(BackendStates.shown(
                        s,
                        Map.of(new ServerThread(ONE, 12), new ThreadRow("Query", "Waiting for table metadata lock"))))
                .isEqualTo(thread(ONE, 12));
    }

    @Test
    void aThreadOfTheSameIdOnAnotherServerIsNotIt() {
        SessionInfo s = running(thread(ONE, 12));
        assertThat(BackendStates.shown(s, Map.of(new ServerThread(TWO, 12), new ThreadRow("Query", "Sending data"))))
                .isNull();
    }

    @Test
    void aThreadThatHasAnsweredOrHasNoStateIsNotShown() {
        SessionInfo s = running(thread(ONE, 12), thread(TWO, 7));
        assertThat(BackendStates.shown(
                        s,
                        Map.of(
                                new ServerThread(ONE, 12), new ThreadRow("Sleep", ""),
                                new ServerThread(TWO, 7), new ThreadRow("Query", null))))
                .isNull();
        assertThat(BackendStates.shown(
                        s,
                        Map.of(
                                new ServerThread(ONE, 12), new ThreadRow("Sleep", ""),
                                new ServerThread(TWO, 7), new ThreadRow("Query", "Sending data"))))
                .as("a scatter: the first thread still working")
                .isEqualTo(thread(TWO, 7));
    }

    @Test
    void aSessionRunningNothingOnABackendShowsTheRoutersState() {
        assertThat(BackendStates.shown(running(), Map.of())).isNull();
    }
}
