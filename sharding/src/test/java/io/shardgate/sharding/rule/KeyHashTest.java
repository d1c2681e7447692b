package io.shardgate.sharding.rule;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyHashTest {
    @Test
    void knownAnswers() {
        assertThat(KeyHash.murmur3(new byte[0])).isZero();
        assertThat(KeyHash.murmur3("hello".getBytes(StandardCharsets.UTF_8))).isEqualTo(0x248bfa47);
        assertThat(KeyHash.murmur3("The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(0x2e4ff723);
    }

    @Test
    void agreesWithGuavaOnEveryTailLength() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 2000; i++) {
            byte[] data = new byte[random.nextInt(40)];
            for (int j = 0; j < data.length; j++) {
                data[j] = (byte) random.nextInt(256);
            }
            assertThat(KeyHash.murmur3(data))
                    .as("length %d", data.length)
                    .isEqualTo(Hashing.murmur3_32_fixed().hashBytes(data).asInt());
        }
    }

    @Test
    void integerKeysHashTheirEightLittleEndianBytes() {
        // pinned placements: changing the hash moves every row of every deployment
        assertThat(KeyHash.bucket(42L, 1024)).isEqualTo((int)
                (Integer.toUnsignedLong(Hashing.murmur3_32_fixed().hashLong(42L).asInt()) % 1024));
        assertThat(KeyHash.bucket(-1L, 1024)).isEqualTo((int)
                (Integer.toUnsignedLong(Hashing.murmur3_32_fixed().hashLong(-1L).asInt()) % 1024));
        assertThat(KeyHash.bucket("abc", 16)).isEqualTo((int) (Integer.toUnsignedLong(Hashing.murmur3_32_fixed()
                        .hashString("abc", StandardCharsets.UTF_8)
                        .asInt())
                % 16));
    }

    @Test
    void integerKeyHashEqualsTheHashOfItsBytes() {
        SplittableRandom random = new SplittableRandom(5);
        long[] edges = {0, 1, -1, 42, Long.MIN_VALUE, Long.MAX_VALUE, 0xFFFF_FFFFL, 1L << 32};
        for (int i = 0; i < 2000 + edges.length; i++) {
            long key = i < edges.length ? edges[i] : random.nextLong();
            byte[] bytes = new byte[8];
            for (int b = 0; b < 8; b++) {
                bytes[b] = (byte) (key >>> (8 * b));
            }
            assertThat(KeyHash.murmur3(key)).as("key %d", key).isEqualTo(KeyHash.murmur3(bytes));
        }
    }
}
