package io.shardgate.protocol.charset;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MySqlLatin1Test {
    @Test
    void everyByteDecodesAndEncodesBackToItself() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        String text = new String(all, MySqlLatin1.INSTANCE);
        assertThat(text).hasSize(256).doesNotContain("\uFFFD");
        assertThat(text.getBytes(MySqlLatin1.INSTANCE)).isEqualTo(all);
    }

    @Test
    void mapsAsMySqlDoes() {
        // cp1252's letters above 0x7F, and the undefined 0x81 as the control character U+0081
        assertThat(new String(new byte[] {(byte) 0xDF, (byte) 0x80, (byte) 0x81, (byte) 0x9F}, MySqlLatin1.INSTANCE))
                .isEqualTo("ß€\u0081Ÿ");
        assertThat("ß'é".getBytes(MySqlLatin1.INSTANCE)).isEqualTo(new byte[] {(byte) 0xDF, '\'', (byte) 0xE9});
        assertThat("日".getBytes(MySqlLatin1.INSTANCE)).isEqualTo(new byte[] {'?'});
    }

    @Test
    void knowsTheCharsetsClientsUse() {
        assertThat(MySqlCharsets.forName("UTF8MB4")).isEqualTo(StandardCharsets.UTF_8);
        assertThat(MySqlCharsets.forName("latin1")).isSameAs(MySqlLatin1.INSTANCE);
        assertThat(MySqlCharsets.forName("sjis").name()).isEqualTo("Shift_JIS");
        assertThat(MySqlCharsets.forName("armscii8")).isNull();
        assertThat(MySqlCharsets.forName(null)).isNull();
    }
}
