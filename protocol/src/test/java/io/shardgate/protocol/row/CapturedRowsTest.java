package io.shardgate.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.CapturedPackets.Captured;
import io.shardgate.protocol.fixture.Wire;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.MySqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Text and binary rows of the same 26-column table captured from MariaDB (see capture/psclient.py). */
class CapturedRowsTest {
    private static final Capabilities PLAIN = new Capabilities(0x000ea209);
    private static final int COLUMNS = 26;

    /** Column definitions and row payloads of a captured result set with EOF packets. */
    private record ResultSet(List<ColumnDefinition41> columns, List<byte[]> rows) {}

    private static ResultSet load(String name, boolean deprecateEof) {
        List<Captured> server = CapturedPackets.fromServer(name);
        List<ColumnDefinition41> columns = new ArrayList<>();
        for (int i = 1; i <= COLUMNS; i++) {
            columns.add(Wire.read(server.get(i).payload(), in -> ColumnDefinition41.read(in, PLAIN)));
        }
        int firstRow = COLUMNS + (deprecateEof ? 1 : 2);
        List<byte[]> rows = new ArrayList<>();
        for (Captured c : server.subList(firstRow, server.size() - 1)) {
            rows.add(c.payload());
        }
        return new ResultSet(columns, rows);
    }

    @Test
    void binaryRowsDecodeToTheInsertedValues() {
        ResultSet rs = load("binary-resultset", false);
        assertThat(rs.rows()).hasSize(4);
        List<Object> row1 = Wire.read(rs.rows().get(0), in -> BinaryRow.read(in, rs.columns()));
        assertThat(row1.subList(0, 10))
                .containsExactly(
                        1L,
                        -128L,
                        255L,
                        -32768L,
                        -8388608L,
                        -2147483648L,
                        Long.MIN_VALUE,
                        new BigInteger("18446744073709551615"),
                        1.5f,
                        -2.25d);
        assertThat(row1.get(10)).isEqualTo(new BigDecimal("-12345678901234.123456"));
        assertThat(row1.get(11)).isEqualTo(new MySqlDateTime(2024, 2, 29, 0, 0, 0, 0));
        assertThat(row1.get(12)).isEqualTo(new MySqlDateTime(2024, 2, 29, 13, 14, 15, 123456));
        assertThat(row1.get(13)).isEqualTo(new MySqlDateTime(2038, 1, 19, 3, 14, 7, 999000));
        assertThat(row1.get(14))
                .isEqualTo(Duration.ofHours(-838).minusMinutes(59).minusSeconds(59));
        assertThat(row1.get(15)).isEqualTo(2155L);
        assertThat(hexOf(row1.get(16))).isEqualTo("02aa"); // BIT(10) b'1010101010'
        assertThat(text(row1.get(17))).isEqualTo("ab");
        assertThat(text(row1.get(18))).isEqualTo("héllo wörld");
        assertThat(hexOf(row1.get(19))).isEqualTo("00ff0001");
        assertThat(hexOf(row1.get(20))).isEqualTo("deadbeef00");
        assertThat(text(row1.get(22))).isEqualTo("green");
        assertThat(text(row1.get(23))).isEqualTo("a,c");
        assertThat(text(row1.get(24))).isEqualTo("{\"k\": [1, 2]}");
        assertThat((byte[]) row1.get(25)).hasSize(25); // SRID int<4> + WKB point
        assertThat(rs.columns().get(7).type()).isEqualTo(MySqlType.LONGLONG);
        assertThat(rs.columns().get(25).type()).isEqualTo(MySqlType.GEOMETRY);

        List<Object> row2 = Wire.read(rs.rows().get(1), in -> BinaryRow.read(in, rs.columns()));
        assertThat(row2.get(0)).isEqualTo(2L);
        assertThat(row2.subList(1, COLUMNS)).containsOnlyNulls();

        List<Object> row3 = Wire.read(rs.rows().get(2), in -> BinaryRow.read(in, rs.columns()));
        assertThat(row3.get(6)).isEqualTo(Long.MAX_VALUE);
        assertThat(row3.get(7)).isEqualTo(BigInteger.ZERO);
        assertThat(row3.get(9)).isEqualTo(1e308);
        assertThat(row3.get(10)).isEqualTo(new BigDecimal("0.000001"));
        assertThat(row3.get(14)).isEqualTo(Duration.ofHours(30).plusMillis(500));
        assertThat((byte[]) row3.get(19)).isEmpty();

        List<Object> row4 = Wire.read(rs.rows().get(3), in -> BinaryRow.read(in, rs.columns()));
        assertThat(row4.get(14)).isEqualTo(Duration.ofSeconds(-1));
    }

    @Test
    void textAndBinaryRowsOfTheSameTableDecodeToEqualValues() {
        ResultSet text = load("text-resultset-types", false);
        ResultSet binary = load("binary-resultset", false);
        for (int r = 0; r < 4; r++) {
            byte[] textRow = text.rows().get(r);
            byte[] binaryRow = binary.rows().get(r);
            List<Object> a = Wire.read(textRow, in -> TextRow.read(in, text.columns()));
            List<Object> b = Wire.read(binaryRow, in -> BinaryRow.read(in, binary.columns()));
            assertThat(comparable(a)).as("row %d", r + 1).isEqualTo(comparable(b));
        }
    }

    @Test
    void rowsReEncodeToTheCapturedBytes() {
        for (String name : List.of("binary-resultset", "deprecate-eof-binary-resultset")) {
            ResultSet rs = load(name, name.startsWith("deprecate"));
            for (byte[] row : rs.rows()) {
                Wire.roundTrip(
                        row, in -> BinaryRow.read(in, rs.columns()), (v, out) -> BinaryRow.write(out, rs.columns(), v));
            }
        }
        ResultSet text = load("text-resultset-types", false);
        for (byte[] row : text.rows()) {
            Wire.roundTrip(
                    row, in -> TextRow.read(in, text.columns()), (v, out) -> TextRow.write(out, text.columns(), v));
        }
    }

    @Test
    void cliTextRowsWithExtendedTypeInfoReEncode() {
        Capabilities cli = new Capabilities(PLAIN.flags(), CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO);
        List<Captured> server = CapturedPackets.fromServer("text-resultset-mariadb-ext");
        List<ColumnDefinition41> columns = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            columns.add(Wire.read(server.get(i).payload(), in -> ColumnDefinition41.read(in, cli)));
        }
        List<Object> row1 = Wire.roundTrip(
                server.get(8).payload(), in -> TextRow.read(in, columns), (v, out) -> TextRow.write(out, columns, v));
        assertThat(row1.get(2)).isEqualTo(new BigDecimal("9.99"));
        assertThat(row1.get(5)).isNull();
        List<Object> row2 = Wire.roundTrip(
                server.get(9).payload(), in -> TextRow.read(in, columns), (v, out) -> TextRow.write(out, columns, v));
        assertThat(row2.get(3)).isEqualTo(new MySqlDateTime(1999, 12, 31, 23, 59, 59, 0));
    }

    @Test
    void truncatedRowsFailTyped() {
        ResultSet binary = load("binary-resultset", false);
        ResultSet text = load("text-resultset-types", false);
        Wire.truncationsFailTyped(binary.rows().get(0), in -> BinaryRow.read(in, binary.columns()));
        Wire.truncationsFailTyped(text.rows().get(0), in -> TextRow.read(in, text.columns()));
    }

    /** Values with byte arrays as hex, so lists compare by content. */
    private static List<Object> comparable(List<Object> values) {
        List<Object> out = new ArrayList<>();
        for (Object v : values) {
            out.add(v instanceof byte[] b ? HexFormat.of().formatHex(b) : v);
        }
        return out;
    }

    private static String hexOf(Object bytes) {
        return HexFormat.of().formatHex((byte[]) bytes);
    }

    private static String text(Object bytes) {
        return new String((byte[]) bytes, StandardCharsets.UTF_8);
    }
}
