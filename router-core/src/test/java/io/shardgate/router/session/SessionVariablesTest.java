package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SessionVariablesTest {

    private static SessionVariables after(String... statements) {
        SessionVariables state = SessionVariables.initial("db");
        for (String sql : statements) {
            state = state.apply(StatementScanner.scan(sql));
        }
        return state;
    }

    @Test
    void mysqldumpsSaveAndRestoreReplaysTheSavedValue() {
        SessionVariables state = after(
                "/*!40101 SET NAMES utf8mb4 */",
                "/*!40101 SET @saved_cs_client     = @@character_set_client */",
                "/*!40101 SET character_set_client = utf8 */",
                "/*!40101 SET character_set_client = @saved_cs_client */");

        assertThat(List.copyOf(state.fragments().values()))
                .containsExactly("NAMES utf8mb4", "character_set_client = 'utf8mb4'");
    }

    @Test
    void copyOfAVariableSetOneByOneAndOfSeveralInOneSet() {
        SessionVariables state = after(
                "SET time_zone = '+02:00'",
                "SET @OLD_TIME_ZONE=@@TIME_ZONE, time_zone = '+00:00'",
                "SET @OLD_UNIQUE_CHECKS=@@session.unique_checks",
                "SET TIME_ZONE=@OLD_TIME_ZONE");

        assertThat(state.fragments()).containsEntry("time_zone", "time_zone = '+02:00'");
    }

    @Test
    void copyOfAVariableTheSessionNeverSetStaysUnresolved() {
        // the server's default is unknown here: the replay keeps @old and fails with the server's error
        SessionVariables state = after("SET @old = @@sql_mode", "SET sql_mode = @old");

        assertThat(state.fragments()).containsEntry("sql_mode", "sql_mode = @old");
    }

    @Test
    void userVariableAssignedAnExpressionIsNoCopy() {
        SessionVariables state =
                after("SET time_zone = '+01:00'", "SET @x = CONCAT(@@time_zone, '')", "SET time_zone = @x");

        assertThat(state.fragments()).containsEntry("time_zone", "time_zone = @x");
        assertThat(StatementScanner.scan("SET @x = @@time_zone").pins()).contains(PinReason.USER_VARIABLE);
    }
}
