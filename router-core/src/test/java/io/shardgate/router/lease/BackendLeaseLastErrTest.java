package io.shardgate.router.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.packet.ErrPacket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The error that stopped a multi-statement query of the router's own is its response's last packet. */
class BackendLeaseLastErrTest {

    @Test
    void theErrAfterAnOkWithMoreResultsIsTheOneReported() {
        ByteBuf response = Unpooled.buffer();
        try {
            // OK: affected 0, insert id 0, status SERVER_MORE_RESULTS_EXISTS, no warnings
            frame(response, 1, new byte[] {0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00});
            byte[] message = "XAER_RMFAIL: The command cannot be executed".getBytes(StandardCharsets.UTF_8);
            ByteBuf err = Unpooled.buffer();
            err.writeByte(0xff)
                    .writeShortLE(1399)
                    .writeByte('#')
                    .writeBytes("XAE07".getBytes(StandardCharsets.US_ASCII));
            err.writeBytes(message);
            byte[] errBytes = new byte[err.readableBytes()];
            err.readBytes(errBytes);
            err.release();
            frame(response, 2, errBytes);
            ErrPacket last = BackendLease.lastErr(response);
            assertThat(last.code()).isEqualTo(1399);
            assertThat(last.sqlState()).isEqualTo("XAE07");
            assertThat(last.message()).startsWith("XAER_RMFAIL");
        } finally {
            response.release();
        }
    }

    @Test
    void aLoneErrIsReported() {
        ByteBuf response = Unpooled.buffer();
        try {
            frame(response, 1, new byte[] {(byte) 0xff, 0x18, 0x04, '#', '4', '2', '0', '0', '0', 'x'});
            assertThat(BackendLease.lastErr(response).code()).isEqualTo(1048);
        } finally {
            response.release();
        }
    }

    private static void frame(ByteBuf out, int sequence, byte[] payload) {
        out.writeMediumLE(payload.length).writeByte(sequence).writeBytes(payload);
    }
}
