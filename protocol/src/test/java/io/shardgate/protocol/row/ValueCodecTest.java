package io.shardgate.protocol.row;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.Wire;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ParameterType;
import io.shardgate.protocol.type.MySqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValueCodecTest {
    private static Object binary(String hex, MySqlType type, boolean unsigned) {
        return Wire.read(hex(hex), in -> BinaryValue.read(in, type, unsigned));
    }

    private static void binaryRoundTrip(String hex, MySqlType type, boolean unsigned, Object expected) {
        Object value = Wire.roundTrip(
                hex(hex), in -> BinaryValue.read(in, type, unsigned), (v, out) -> BinaryValue.write(out, v, type));
        assertThat(value).isEqualTo(expected);
    }

    @Test
    void binaryIntegersSignedAndUnsigned() {
        binaryRoundTrip("ff", MySqlType.TINY, false, -1L);
        binaryRoundTrip("ff", MySqlType.TINY, true, 255L);
        binaryRoundTrip("fffe", MySqlType.SHORT, false, -257L);
        binaryRoundTrip("fffe", MySqlType.SHORT, true, 65279L);
        binaryRoundTrip("ffffffff", MySqlType.LONG, true, 4294967295L);
        binaryRoundTrip("ffffff00", MySqlType.INT24, false, 16777215L);
        binaryRoundTrip("feffffffffffffff", MySqlType.LONGLONG, true, new BigInteger("18446744073709551614"));
        binaryRoundTrip("0100000000000080", MySqlType.LONGLONG, false, Long.MIN_VALUE + 1);
        binaryRoundTrip("e507", MySqlType.YEAR, false, 2021L);
        binaryRoundTrip("0000c03f", MySqlType.FLOAT, false, 1.5f);
        binaryRoundTrip("000000000000f0bf", MySqlType.DOUBLE, false, -1.0);
    }

    @Test
    void binaryDateTimeLengths() {
        binaryRoundTrip("00", MySqlType.DATETIME, false, MySqlDateTime.ZERO);
        binaryRoundTrip("04 da07 0a 11", MySqlType.DATE, false, new MySqlDateTime(2010, 10, 17, 0, 0, 0, 0));
        binaryRoundTrip(
                "07 da07 0a 11 13 1b 1e", MySqlType.DATETIME, false, new MySqlDateTime(2010, 10, 17, 19, 27, 30, 0));
        binaryRoundTrip(
                "0b da07 0a 11 13 1b 1e 01000000",
                MySqlType.TIMESTAMP,
                false,
                new MySqlDateTime(2010, 10, 17, 19, 27, 30, 1));
        assertThat(binary("04 0000 00 00", MySqlType.DATE, false)).isEqualTo(MySqlDateTime.ZERO);
        assertThatThrownBy(() -> binary("05 da07 0a 11 13", MySqlType.DATETIME, false))
                .isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void binaryTimeWithDaysSignAndMicros() {
        binaryRoundTrip("00", MySqlType.TIME, false, Duration.ZERO);
        binaryRoundTrip(
                "08 01 78000000 13 1b 1e",
                MySqlType.TIME,
                false,
                Duration.ofDays(120)
                        .plusHours(19)
                        .plusMinutes(27)
                        .plusSeconds(30)
                        .negated());
        binaryRoundTrip(
                "0c 00 01000000 02 03 04 40e20100",
                MySqlType.TIME,
                false,
                Duration.ofDays(1).plusHours(2).plusMinutes(3).plusSeconds(4).plusNanos(123_456_000));
        assertThatThrownBy(() -> binary("09 00 00000000 00 00 00 00", MySqlType.TIME, false))
                .isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void binaryStringsKeepZeroBytesAndDecimalIsText() {
        Object bytes = Wire.roundTrip(
                hex("03 00ff00"),
                in -> BinaryValue.read(in, MySqlType.BLOB, false),
                (v, out) -> BinaryValue.write(out, v, MySqlType.BLOB));
        assertThat((byte[]) bytes).containsExactly(0x00, 0xff, 0x00);
        binaryRoundTrip("05 2d312e3530", MySqlType.NEWDECIMAL, false, new BigDecimal("-1.50"));
        assertThatThrownBy(() -> binary("02 2d", MySqlType.VAR_STRING, false))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> binary("03 616263", MySqlType.NEWDECIMAL, false))
                .isInstanceOf(MalformedPacketException.class);
        assertThatThrownBy(() -> binary("0102", MySqlType.LONG, false)).isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void textTemporalAndNumbers() {
        assertThat(TextValue.parse(ascii("0000-00-00 00:00:00"), MySqlType.DATETIME, false))
                .isEqualTo(MySqlDateTime.ZERO);
        assertThat(TextValue.parse(ascii("2024-02-29 13:14:15.5"), MySqlType.DATETIME, false))
                .isEqualTo(new MySqlDateTime(2024, 2, 29, 13, 14, 15, 500000));
        assertThat(TextValue.parse(ascii("-838:59:59.000001"), MySqlType.TIME, false))
                .isEqualTo(Duration.ofHours(838)
                        .plusMinutes(59)
                        .plusSeconds(59)
                        .plusNanos(1000)
                        .negated());
        assertThat(TextValue.parse(ascii("18446744073709551615"), MySqlType.LONGLONG, true))
                .isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(TextValue.parse(ascii("-5"), MySqlType.TINY, false)).isEqualTo(-5L);
        assertThat(ascii(TextValue.format(new MySqlDateTime(2024, 1, 2, 3, 4, 5, 60), MySqlType.DATETIME, 6)))
                .isEqualTo("2024-01-02 03:04:05.000060");
        assertThat(ascii(TextValue.format(new MySqlDateTime(2024, 1, 2, 3, 4, 5, 60), MySqlType.DATETIME, 0)))
                .isEqualTo("2024-01-02 03:04:05");
        assertThat(ascii(TextValue.format(Duration.ofHours(-30).minusMillis(500), MySqlType.TIME, 1)))
                .isEqualTo("-30:00:00.5");
        assertThat(ascii(TextValue.format(new BigDecimal("1.5"), MySqlType.NEWDECIMAL, 3)))
                .isEqualTo("1.500");
        assertThatThrownBy(() -> TextValue.parse(ascii("12:xx"), MySqlType.TIME, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TextValue.parse(ascii("abc"), MySqlType.LONG, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void floatingPointTextMatchesMariaDb() {
        // SELECT 1e308, 1e15, 1e16, 123456789012345678e0, 1e-4, 1e-5, 0.1e0, -0.5e0, 1.0e0, 0e0,
        // 3.14159265358979e0, 1e14, 2.5e-7, 4.9e-324, 100e0 on MariaDB 10.11
        String[][] doubles = {
            {"1e308", "1e308"},
            {"1e15", "1e15"},
            {"1e16", "1e16"},
            {"123456789012345678", "1.2345678901234568e17"},
            {"1e-4", "0.0001"},
            {"1e-5", "0.00001"},
            {"0.1", "0.1"},
            {"-0.5", "-0.5"},
            {"1", "1"},
            {"0", "0"},
            {"3.14159265358979", "3.14159265358979"},
            {"1e14", "100000000000000"},
            {"2.5e-7", "0.00000025"},
            {"4.9e-324", "5e-324"},
            {"100", "100"},
            {"1.7976931348623157e308", "1.7976931348623157e308"}
        };
        for (String[] d : doubles) {
            assertThat(FloatingText.format(Double.parseDouble(d[0]), false))
                    .as(d[0])
                    .isEqualTo(d[1]);
        }
        // FLOAT column holding 1.5, 0.1, 1e20, 1e-5, 3.4e38, 123456789, 1234567, -0.0001, 1e7
        String[][] floats = {
            {"1.5", "1.5"},
            {"0.1", "0.1"},
            {"1e20", "1e20"},
            {"1e-5", "0.00001"},
            {"3.4e38", "3.4e38"},
            {"123456789", "123457000"},
            {"1234567", "1234570"},
            {"-0.0001", "-0.0001"},
            {"1e7", "10000000"}
        };
        for (String[] f : floats) {
            assertThat(FloatingText.format(Float.parseFloat(f[0]), true))
                    .as(f[0])
                    .isEqualTo(f[1]);
        }
    }

    @Test
    void executeParametersDecodeWithTheSameCodec() {
        byte[] payload = CapturedPackets.load("binary-resultset").get(0).payload();
        ComStmtExecute e =
                Wire.read(payload, in -> ComStmtExecute.read(in, new Capabilities(0x000ea209), 1, List.of()));
        assertThat(BinaryParameters.decode(e)).containsExactly(1L);
        ParameterType dt = new ParameterType(MySqlType.DATETIME, false);
        ParameterType ul = new ParameterType(MySqlType.LONGLONG, true);
        MySqlDateTime when = MySqlDateTime.of(LocalDateTime.of(2020, 5, 6, 7, 8, 9));
        ComStmtExecute built = new ComStmtExecute(
                3,
                0,
                1,
                new byte[] {0x02},
                true,
                List.of(dt, ul),
                List.of("", ""),
                Arrays.asList(BinaryParameters.encode(when, dt), null));
        assertThat(BinaryParameters.decode(built)).containsExactly(when, null);
        assertThat(BinaryParameters.encode(new BigInteger("18446744073709551615"), ul))
                .isEqualTo(hex("ffffffffffffffff"));
    }

    @Test
    void mySqlDateTimeKeepsZeroAndPartialDates() {
        MySqlDateTime partial = new MySqlDateTime(2024, 0, 0, 0, 0, 0, 0);
        assertThat(partial.isValidDate()).isFalse();
        assertThat(new MySqlDateTime(2023, 2, 29, 0, 0, 0, 0).isValidDate()).isFalse();
        assertThat(new MySqlDateTime(2024, 2, 29, 0, 0, 0, 0).isValidDate()).isTrue();
        assertThat(partial.compareTo(new MySqlDateTime(2024, 1, 1, 0, 0, 0, 0))).isNegative();
        assertThat(MySqlDateTime.of(LocalDateTime.of(2020, 1, 2, 3, 4, 5, 123_456_789))
                        .microsecond())
                .isEqualTo(123456);
        assertThatThrownBy(() -> new MySqlDateTime(2024, 13, 1, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }
}
