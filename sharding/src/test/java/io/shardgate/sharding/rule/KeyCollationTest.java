package io.shardgate.sharding.rule;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.Hashing;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KeyCollationTest {
    private static final int BUCKETS = 4096;

    @Test
    void generalCiKeyBytesAreTheServersWeightString() {
        // the server's answers, SELECT HEX(WEIGHT_STRING(_utf8mb4'..' COLLATE utf8mb4_general_ci)) (MariaDB 10.11)
        assertThat(hex(KeyCollation.GENERAL_CI.keyBytes("ß"))).isEqualTo("0053");
        assertThat(hex(KeyCollation.GENERAL_CI.keyBytes("ǅ"))).isEqualTo("01C4");
        assertThat(hex(KeyCollation.GENERAL_CI.keyBytes("Apple"))).isEqualTo("004100500050004C0045");
        assertThat(hex(KeyCollation.GENERAL_CI.keyBytes("\uD83D\uDE00"))).isEqualTo("FFFD");
    }

    @Test
    void generalCiPlacesKeysTheCollationCallsEqualInOneBucket() {
        String[][] equal = {
            {"apple", "APPLE", "Apple", "ápple", "äpple"}, {"s", "S", "ß"}, {"k", "K"}, {"\uD83D\uDE00", "\uD83D\uDE01"}
        };
        for (String[] group : equal) {
            int bucket = KeyHash.bucket(group[0], KeyCollation.GENERAL_CI, BUCKETS);
            for (String key : group) {
                assertThat(KeyHash.bucket(key, KeyCollation.GENERAL_CI, BUCKETS))
                        .as(key)
                        .isEqualTo(bucket);
            }
        }
        // binary keeps them apart, as it compares code points (the pair was chosen to differ)
        assertThat(KeyHash.bucket("apple", BUCKETS)).isNotEqualTo(KeyHash.bucket("APPLE", BUCKETS));
    }

    @Test
    void generalCiHashIsMurmurOfTheWeightStringPinned() {
        // pinned placement: changing it moves every row of every deployment with key_collation: utf8mb4_general_ci
        byte[] weights = HexFormat.of().parseHex("004100420043");
        assertThat(KeyHash.bucket("abc", KeyCollation.GENERAL_CI, 16)).isEqualTo((int) (Integer.toUnsignedLong(
                        Hashing.murmur3_32_fixed().hashBytes(weights).asInt())
                % 16));
        assertThat(KeyHash.bucket("abc", KeyCollation.GENERAL_CI, 1024))
                .isEqualTo(KeyHash.bucket("ABC", KeyCollation.GENERAL_CI, 1024));
    }

    @Test
    void trailingSpacesAreDroppedUnderBothAsPadSpaceCompares() {
        assertThat(KeyCollation.GENERAL_CI.keyBytes("a  ")).isEqualTo(KeyCollation.GENERAL_CI.keyBytes("A"));
        assertThat(KeyCollation.GENERAL_CI.keyBytes("   ")).isEmpty();
    }

    @Test
    void ruleNamesAndTheirUtf8mb3Twins() {
        assertThat(KeyCollation.ofRuleName("binary")).isEqualTo(KeyCollation.BINARY);
        assertThat(KeyCollation.ofRuleName("UTF8MB4_GENERAL_CI")).isEqualTo(KeyCollation.GENERAL_CI);
        assertThat(KeyCollation.ofRuleName("utf8mb3_general_ci")).isEqualTo(KeyCollation.GENERAL_CI);
        assertThat(KeyCollation.ofRuleName("utf8mb4_unicode_ci")).isNull();
    }

    @Test
    void aColumnFitsWhenNoTwoOfItsEqualValuesAreDifferentKeys() {
        assertThat(KeyCollation.BINARY.fitsColumn(null)).isTrue();
        assertThat(KeyCollation.BINARY.fitsColumn("utf8mb4_bin")).isTrue();
        assertThat(KeyCollation.BINARY.fitsColumn("utf8mb4_nopad_bin")).isTrue();
        assertThat(KeyCollation.BINARY.fitsColumn("latin1_bin")).isTrue();
        assertThat(KeyCollation.BINARY.fitsColumn("utf8mb4_general_ci")).isFalse();
        assertThat(KeyCollation.BINARY.fitsColumn("latin1_swedish_ci")).isFalse();

        assertThat(KeyCollation.GENERAL_CI.fitsColumn("utf8mb4_general_ci")).isTrue();
        assertThat(KeyCollation.GENERAL_CI.fitsColumn("utf8mb3_general_ci")).isTrue();
        assertThat(KeyCollation.GENERAL_CI.fitsColumn("utf8mb4_general_nopad_ci"))
                .isTrue();
        assertThat(KeyCollation.GENERAL_CI.fitsColumn("utf8mb4_bin")).isTrue();
        // 'ß' = 'ss' there, which general_ci weighs apart
        assertThat(KeyCollation.GENERAL_CI.fitsColumn("utf8mb4_unicode_ci")).isFalse();
        assertThat(KeyCollation.GENERAL_CI.fitsColumn("utf8mb4_uca1400_ai_ci")).isFalse();
        assertThat(KeyCollation.GENERAL_CI.fitsColumn("latin1_swedish_ci")).isFalse();
    }

    private static String hex(byte[] b) {
        return HexFormat.of().withUpperCase().formatHex(b);
    }

    @Test
    void bytesNotValidInTheStatementsCharsetHashAsTheBytesTheServerStores() {
        // a VARBINARY key written as raw bytes ('\xFF' 'a'), decoded with the byte escaped
        String key = "\uDCFFa";
        assertThat(KeyCollation.BINARY.keyBytes(key)).containsExactly((byte) 0xFF, (byte) 'a');
        // a text column stores such a byte as '?' (or refuses it in strict mode)
        assertThat(KeyCollation.GENERAL_CI.keyBytes(key)).isEqualTo(KeyCollation.GENERAL_CI.keyBytes("?a"));
    }
}
