package io.shardgate.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Weights as MariaDB 11.4's WEIGHT_STRING returns them (the hex below is the server's). */
class WeightStringsTest {
    private static final String GENERAL_CI = "utf8mb4_general_ci";
    /** utf8mb4_general_ci: PAD SPACE, two spaces weigh 0x0020 twice. */
    private static final byte[] GENERAL_CI_PAD = pad('P', "00200020");

    private static byte[] hex(String h) {
        return HexFormat.of().parseHex(h);
    }

    private static byte[] pad(char padding, String twoSpaces) {
        byte[] w = hex(twoSpaces);
        byte[] out = new byte[w.length + 1];
        out[0] = (byte) padding;
        System.arraycopy(w, 0, out, 1, w.length);
        return out;
    }

    private static int compare(String a, String b, byte[] pad) {
        return Integer.signum(WeightStrings.compare(hex(a), hex(b), pad, GENERAL_CI));
    }

    private static String key(String weight, byte[] pad) {
        return WeightStrings.key(hex(weight), pad, GENERAL_CI);
    }

    @Test
    void padSpaceMakesTrailingSpacesEqualAndTabLess() {
        // 'a' 0041, 'a ' 00410020, 'a\t' 00410009, '' empty
        assertThat(compare("0041", "00410020", GENERAL_CI_PAD)).isZero();
        assertThat(compare("00410009", "0041", GENERAL_CI_PAD)).isNegative();
        assertThat(compare("0041", "00410009", GENERAL_CI_PAD)).isPositive();
        assertThat(compare("", "00200020", GENERAL_CI_PAD)).isZero();
        assertThat(compare("0041", "0042", GENERAL_CI_PAD)).isNegative();
        assertThat(key("00410020", GENERAL_CI_PAD)).isEqualTo(key("0041", GENERAL_CI_PAD));
        assertThat(key("00410009", GENERAL_CI_PAD)).isNotEqualTo(key("0041", GENERAL_CI_PAD));
    }

    @Test
    void noPadComparesWeightsAsTheyAre() {
        // utf8mb4_nopad_bin: 'a' 000061, 'a ' 000061000020
        byte[] noPad = pad('N', "000020000020");
        assertThat(compare("000061", "000061000020", noPad)).isNegative();
        assertThat(compare("000061000020", "000061", noPad)).isPositive();
        assertThat(key("000061000020", noPad)).isNotEqualTo(key("000061", noPad));
    }

    @Test
    void weighsBytesAsUnsignedNumbers() {
        // unicode_ci: 'ß' 0FEA0FEA = 'ss'; an emoji FFFD sorts after every letter
        byte[] unicodePad = pad('P', "02090209");
        assertThat(compare("FFFD", "0FEA", unicodePad)).isPositive();
        assertThat(key("0FEA0FEA", unicodePad)).isEqualTo(key("0FEA0FEA0209", unicodePad));
    }

    @Test
    void refusesCollationsThatWeighSeveralLevelsPaddedOrNot() {
        // utf8mb4_uca1400_as_cs weighs '  ' as 0209 0209 | 0020 0020 | 0002 0002: not one unit twice
        for (char padding : new char[] {'P', 'N'}) {
            byte[] twoSpaces = pad(padding, "020902090020002000020002");
            assertThatThrownBy(
                            () -> WeightStrings.compare(hex("2075"), hex("2075"), twoSpaces, "utf8mb4_uca1400_as_cs"))
                    .isInstanceOf(MergeException.class)
                    .hasMessageContaining("utf8mb4_uca1400_as_cs")
                    .hasMessageContaining("several levels");
        }
    }
}
