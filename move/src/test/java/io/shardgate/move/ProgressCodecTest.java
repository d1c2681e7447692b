package io.shardgate.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class ProgressCodecTest {
    @Test
    void aProgressComesBackWithItsKeysTypes() {
        Object[] key = {
            42L,
            new BigInteger("18446744073709551615"),
            new BigDecimal("-1.50"),
            "Zoë 𝄞 \"quoted\"",
            new byte[] {0, -1}
        };
        TableCopy.Progress back = ProgressCodec.decode(ProgressCodec.encode(new TableCopy.Progress(key, 10, 4, false)));
        assertThat(back.lastKey()).containsExactly(key);
        assertThat(back.lastKey()[2]).isEqualTo(new BigDecimal("-1.50"));
        assertThat(back.rowsRead()).isEqualTo(10);
        assertThat(back.rowsCopied()).isEqualTo(4);
        assertThat(back.done()).isFalse();
        TableCopy.Progress start = ProgressCodec.decode(ProgressCodec.encode(TableCopy.Progress.START));
        assertThat(start.lastKey()).isNull();
        assertThat(ProgressCodec.decode(ProgressCodec.encode(new TableCopy.Progress(new Object[] {1L}, 1, 1, true)))
                        .done())
                .isTrue();
        assertThatThrownBy(() -> ProgressCodec.encode(new TableCopy.Progress(new Object[] {1.5}, 1, 1, true)))
                .hasMessageContaining("java.lang.Double");
    }
}
