package io.shardgate.router.fakebackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The fake's own promises: how it shows commands, and that it catches a buffer left unreleased. */
class RecordingBackendTest {

    private static byte[] payload(int command, byte... rest) {
        byte[] p = new byte[1 + rest.length];
        p[0] = (byte) command;
        System.arraycopy(rest, 0, p, 1, rest.length);
        return p;
    }

    @Test
    void commandsShowTheirTextOrStatementId() {
        assertThat(RecordingBackend.describe(payload(0x03, "SELECT 1".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("COM_QUERY SELECT 1");
        assertThat(RecordingBackend.describe(payload(0x02, "shop".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("COM_INIT_DB shop");
        assertThat(RecordingBackend.describe(payload(0x19, (byte) 7, (byte) 1, (byte) 0, (byte) 0)))
                .isEqualTo("COM_STMT_CLOSE 263");
        assertThat(RecordingBackend.describe(payload(0x1F))).isEqualTo("COM_RESET_CONNECTION");
        assertThat(RecordingBackend.describe(payload(0x1B, (byte) 1, (byte) 0))).isEqualTo("COM_SET_OPTION 0100");
    }

    @Test
    void closingFailsWhenABufferWasLeftUnreleased() {
        RecordingBackend backend = new RecordingBackend();
        ByteBuf forgotten = backend.client().alloc().buffer(8);
        try {
            assertThatThrownBy(backend::close).hasMessage("1 buffer(s) not released");
        } finally {
            forgotten.release();
        }
    }
}
