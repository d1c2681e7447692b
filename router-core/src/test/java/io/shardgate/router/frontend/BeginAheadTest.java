package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BeginAheadTest {
    @Test
    void aPlainBeginGoesAheadOfTheStatement() {
        for (String begin : List.of(
                "BEGIN",
                "begin",
                "BEGIN WORK",
                "START TRANSACTION",
                "start  transaction read only",
                " START TRANSACTION ;")) {
            assertThat(BeginAhead.allowed(List.of(begin))).as(begin).isTrue();
        }
    }

    @Test
    void aBeginThatCouldFailKeepsItsOwnRoundTrip() {
        for (String begin : List.of(
                "START TRANSACTION READ WRITE",
                "START TRANSACTION WITH CONSISTENT SNAPSHOT",
                "XA START 'sg.1.2.3', 'h10'",
                "BEGIN /* c */",
                "/*!BEGIN*/")) {
            assertThat(BeginAhead.allowed(List.of(begin))).as(begin).isFalse();
        }
        assertThat(BeginAhead.allowed(List.of("BEGIN", "SAVEPOINT a"))).isFalse();
        assertThat(BeginAhead.allowed(List.of("CREATE TABLE IF NOT EXISTS d.t (x INT)", "BEGIN")))
                .isFalse();
        assertThat(BeginAhead.allowed(null)).isFalse();
    }
}
