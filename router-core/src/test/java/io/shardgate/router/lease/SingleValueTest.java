package io.shardgate.router.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SingleValueTest {
    private static final String COUNT = "0100000101";
    private static final String DEFINITION = "0400000203646566"; // abridged: skipped by its length
    private static final String EOF = "05000003fe00000200";

    private static ByteBuf hex(String hex) {
        return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
    }

    /** A row packet (sequence 4) holding {@code text} as its one length-encoded string. */
    private static String row(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return String.format("%02x000004%02x", bytes.length + 1, bytes.length) + ByteBufUtil.hexDump(bytes);
    }

    @Test
    void readsAnUnsignedValueUpToTwentyDigits() {
        assertThat(SingleValue.unsignedLong(hex(COUNT + DEFINITION + EOF + row("42") + "05000005fe00000200")))
                .isEqualTo(42L);
        assertThat(SingleValue.unsignedLong(
                        hex(COUNT + DEFINITION + row("18446744073709551615") + "07000005fe000002000000")))
                .as("beyond Long.MAX_VALUE, without EOF packets")
                .isEqualTo(-1L);
    }

    @Test
    void anythingElseIsNoValue() {
        assertThat(SingleValue.unsignedLong(hex(COUNT + DEFINITION + EOF + "01000004fb" + "05000005fe00000200")))
                .as("NULL")
                .isNull();
        assertThat(SingleValue.unsignedLong(hex(COUNT + DEFINITION + EOF + "05000004fe00000200")))
                .as("no row")
                .isNull();
        assertThat(SingleValue.unsignedLong(hex("09000001ff1f04233432303030")))
                .as("an ERR")
                .isNull();
        assertThat(SingleValue.unsignedLong(hex(COUNT + DEFINITION + EOF + row("x1"))))
                .isNull();
        assertThat(SingleValue.firstRow(hex(COUNT + DEFINITION + EOF + "05000004fe00000200")))
                .isEqualTo(SingleValue.NO_ROW);
        assertThat(SingleValue.firstRow(hex("07000001000000020000")))
                .as("an OK")
                .isEqualTo(SingleValue.NOT_A_RESULT_SET);
    }
}
