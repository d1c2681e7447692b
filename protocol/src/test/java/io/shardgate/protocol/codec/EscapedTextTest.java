package io.shardgate.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Text with bytes invalid in its charset decodes to escapes and writes back byte for byte. */
class EscapedTextTest {
    private static String decode(byte[] bytes, Charset charset) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        return EscapedText.decode(in, 0, bytes.length, charset);
    }

    private static byte[] write(String text, Charset charset) {
        ByteBuf out = Unpooled.buffer();
        EscapedText.write(out, text, charset);
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    @Test
    void validTextDecodesAsTheCharsetDecodesIt() {
        String text = "INSERT INTO t VALUES ('ä ß 😀 中文', 'k ')";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertThat(decode(bytes, StandardCharsets.UTF_8)).isEqualTo(text);
        assertThat(EscapedText.escaped(text)).isFalse();
        assertThat(write(text, StandardCharsets.UTF_8)).isEqualTo(bytes);
        assertThat(EscapedText.valid(Unpooled.wrappedBuffer(bytes), 0, bytes.length, StandardCharsets.UTF_8))
                .isTrue();
    }

    @Test
    void binaryBytesInALiteralBecomeEscapesAndComeBackAsTheyWere() {
        byte[] bytes = {'\'', (byte) 0xFF, 0x00, (byte) 0xC3, (byte) 0xA4, (byte) 0x80, (byte) 0xE2, (byte) 0x82, '\''};
        String text = decode(bytes, StandardCharsets.UTF_8);
        // 0xC3 0xA4 is 'ä'; 0xFF, 0x80 and the truncated 0xE2 0x82 are not UTF-8
        assertThat(text).isEqualTo("'\uDCFF\u0000ä\uDC80\uDCE2\uDC82'");
        assertThat(EscapedText.escaped(text)).isTrue();
        assertThat(write(text, StandardCharsets.UTF_8)).isEqualTo(bytes);
        assertThat(EscapedText.bytes(text, StandardCharsets.UTF_8)).isEqualTo(bytes);
        assertThat(EscapedText.replaceEscapes(text, '?')).isEqualTo("'?\u0000ä???'");
    }

    @Test
    void aSupplementaryCharacterIsNotTakenForAnEscape() {
        // U+10000 is D800 DC00: its low half is in the escape range, after a high surrogate
        String text = "a\uD800\uDC00b";
        assertThat(EscapedText.escaped(text)).isFalse();
        assertThat(write(text, StandardCharsets.UTF_8)).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void randomBytesRoundTripInEveryCharset() {
        Random random = new Random(11);
        for (Charset charset : new Charset[] {
            StandardCharsets.UTF_8,
            Charset.forName("windows-1252"),
            Charset.forName("Shift_JIS"),
            Charset.forName("GBK")
        }) {
            for (int i = 0; i < 2000; i++) {
                byte[] bytes = new byte[random.nextInt(40)];
                random.nextBytes(bytes);
                String text = decode(bytes, charset);
                assertThat(write(text, charset)).as("%s round %d", charset, i).isEqualTo(bytes);
            }
        }
    }
}
