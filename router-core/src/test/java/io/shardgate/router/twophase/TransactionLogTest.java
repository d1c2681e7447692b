package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransactionLogTest {

    @Test
    void decisionRoundTripsThroughItsNode() throws IOException {
        byte[] data = TransactionLog.encode(Outcome.COMMIT, List.of(10, 20));
        assertThat(new String(data, StandardCharsets.UTF_8))
                .isEqualTo("{\"outcome\":\"commit\",\"hostgroups\":[10,20]}");
        assertThat(TransactionLog.decode(data, 1234))
                .isEqualTo(new TransactionLog.Decision(Outcome.COMMIT, List.of(10, 20), 1234));
        assertThatThrownBy(() -> TransactionLog.decode("{\"outcome\":\"maybe\"}".getBytes(StandardCharsets.UTF_8), 0))
                .isInstanceOf(IOException.class);
    }
}
