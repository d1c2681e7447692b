package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ImplicitCommitTest {
    @Test
    void aBeginCommitsFirstWhereverTheTransactionReachedBeyondHome() {
        assertThat(ImplicitCommit.needed(List.of(10, 20), 10)).isTrue();
        assertThat(ImplicitCommit.needed(List.of(20), 10))
                .as("only another hostgroup")
                .isTrue();
    }

    @Test
    void aBeginOnHomeAloneEndsTheHomeTransactionByItself() {
        assertThat(ImplicitCommit.needed(List.of(10), 10)).isFalse();
        assertThat(ImplicitCommit.needed(List.of(), 10))
                .as("no transaction open")
                .isFalse();
    }
}
