package io.shardgate.router.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Weights as MariaDB 11.4's WEIGHT_STRING returns them (hex below from the server). */
class WeightStringsTest {
    private static final String GENERAL_CI = "utf8mb4_general_ci";
    /** Two spaces under utf8mb4_general_ci: 0x0020 twice. */
    private static final byte[] GENERAL_CI_PAD = hex("00200020");

    private static byte[] hex(String h) {
        return HexFormat.of().parseHex(h);
    }

    private static int compare(String a, String b, byte[] pad) {
        return Integer.signum(WeightStrings.compare(hex(a), hex(b), pad, GENERAL_CI));
    }

    @Test
    void padSpaceMakesTrailingSpacesEqualAndTabLess() {
        // 'a' 0041, 'a ' 00410020, 'a\t' 00410009
        assertThat(compare("0041", "00410020", GENERAL_CI_PAD)).isZero();
        assertThat(compare("00410009", "0041", GENERAL_CI_PAD)).isNegative();
        assertThat(compare("0041", "00410009", GENERAL_CI_PAD)).isPositive();
        assertThat(compare("", "00200020", GENERAL_CI_PAD)).isZero();
        assertThat(WeightStrings.key(hex("00410020"), GENERAL_CI_PAD, GENERAL_CI))
                .isEqualTo(WeightStrings.key(hex("0041"), GENERAL_CI_PAD, GENERAL_CI));
        assertThat(WeightStrings.key(hex("00410009"), GENERAL_CI_PAD, GENERAL_CI))
                .isNotEqualTo(WeightStrings.key(hex("0041"), GENERAL_CI_PAD, GENERAL_CI));
    }

    @Test
    void noPadComparesWeightsAsTheyAre() {
        // utf8mb4_nopad_bin: 'a' 000061, 'a ' 000061000020
        assertThat(compare("000061", "000061000020", new byte[0])).isNegative();
        assertThat(WeightStrings.key(hex("000061000020"), new byte[0], "utf8mb4_nopad_bin"))
                .isNotEqualTo(WeightStrings.key(hex("000061"), new byte[0], "utf8mb4_nopad_bin"));
    }

    @Test
    void weighsBytesAsUnsignedNumbers() {
        // unicode_ci: 'ß' 0FEA0FEA = 'ss'; an emoji FFFD sorts after every letter
        byte[] unicodePad = hex("02090209");
        assertThat(Integer.signum(WeightStrings.compare(hex("FFFD"), hex("0FEA"), unicodePad, "x")))
                .isPositive();
        assertThat(WeightStrings.key(hex("0FEA0FEA"), unicodePad, "x"))
                .isEqualTo(WeightStrings.key(hex("0FEA0FEA0209"), unicodePad, "x"));
    }

    @Test
    void refusesCollationsThatWeighSeveralLevels() {
        // utf8mb4_uca1400_as_cs weighs '  ' as 0209 0209 | 0020 0020 | 0002 0002: not one unit twice
        byte[] twoSpaces = hex("020902090020002000020002");
        assertThatThrownBy(
                        () -> WeightStrings.compare(hex("2075"), hex("20750209"), twoSpaces, "utf8mb4_uca1400_as_cs"))
                .isInstanceOf(MergeException.class)
                .hasMessageContaining("utf8mb4_uca1400_as_cs")
                .hasMessageContaining("several levels");
    }
}
