package io.shardgate.protocol.type;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ErrorCodeTest {
    @Test
    void codesAndStatesMatchMySqlErrmsg() {
        assertThat(ErrorCode.ER_CON_COUNT_ERROR).isEqualTo(new ErrorCode(1040, "08004", "Too many connections"));
        assertThat(ErrorCode.ER_ACCESS_DENIED_ERROR.code()).isEqualTo(1045);
        assertThat(ErrorCode.ER_ACCESS_DENIED_ERROR.sqlState()).isEqualTo("28000");
        assertThat(ErrorCode.ER_NO_DB_ERROR.sqlState()).isEqualTo("3D000");
        assertThat(ErrorCode.ER_NOT_SUPPORTED_YET.code()).isEqualTo(1235);
        assertThat(ErrorCode.ER_QUERY_INTERRUPTED.sqlState()).isEqualTo("70100");
        assertThat(ErrorCode.ER_QUERY_TIMEOUT.code()).isEqualTo(3024);
        assertThat(ErrorCode.ER_MALFORMED_PACKET.code()).isEqualTo(1835);
    }

    @Test
    void formatsTemplates() {
        assertThat(ErrorCode.ER_ACCESS_DENIED_ERROR.format("bob", "10.0.0.1", "YES"))
                .isEqualTo("Access denied for user 'bob'@'10.0.0.1' (using password: YES)");
        assertThat(ErrorCode.ER_NOT_SUPPORTED_YET.format("cross-shard join"))
                .isEqualTo("This version of MySQL doesn't yet support 'cross-shard join'");
        assertThat(ErrorCode.ER_UNKNOWN_ERROR.format()).isEqualTo("Unknown error");
        assertThatThrownBy(() -> new ErrorCode(1, "HY00", "x")).isInstanceOf(IllegalArgumentException.class);
    }
}
