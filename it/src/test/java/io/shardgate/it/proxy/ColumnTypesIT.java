package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every common column type, NULLs included, read and written through Shardgate as on the shard. */
@ExtendWith(ProxyClusterExtension.class)
class ColumnTypesIT {

    static final String EMOJI_TEXT = "h\u00e9llo w\u00f6rld \uD83D\uDE00 \uD834\uDD1E \u4e2d\u6587";
    static final String COLUMNS = "c_tinyint, c_tinyint_u, c_smallint, c_mediumint, c_int, c_bigint, c_bigint_u,"
            + " c_float, c_double, c_decimal, c_bit, c_bool, c_date, c_time, c_datetime, c_timestamp, c_year,"
            + " c_char, c_varchar, c_text, c_binary, c_varbinary, c_blob, c_enum, c_set, c_json";
    static final String DDL = " (id INT PRIMARY KEY, c_tinyint TINYINT, c_tinyint_u TINYINT UNSIGNED,"
            + " c_smallint SMALLINT, c_mediumint MEDIUMINT, c_int INT, c_bigint BIGINT, c_bigint_u BIGINT UNSIGNED,"
            + " c_float FLOAT, c_double DOUBLE, c_decimal DECIMAL(30,10), c_bit BIT(8), c_bool BOOLEAN,"
            + " c_date DATE, c_time TIME(3), c_datetime DATETIME(6), c_timestamp TIMESTAMP(6) NULL, c_year YEAR,"
            + " c_char CHAR(10), c_varchar VARCHAR(100), c_text TEXT, c_binary BINARY(4), c_varbinary VARBINARY(16),"
            + " c_blob BLOB, c_enum ENUM('small','medium','large'), c_set SET('a','b','c'), c_json JSON)"
            + " DEFAULT CHARSET=utf8mb4";

    private static ProxyCluster cluster;

    @BeforeAll
    static void createTables(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS all_types, all_types_written");
            s.execute("CREATE TABLE all_types" + DDL);
            s.execute("CREATE TABLE all_types_written" + DDL);
            s.execute("INSERT INTO all_types (id, " + COLUMNS + ") VALUES"
                    + " (1, -128, 255, -32768, -8388608, -2147483648, -9223372036854775808, 18446744073709551615,"
                    + " 3.5, -2.718281828459045, 12345678901234567890.0123456789, b'10100101', TRUE,"
                    + " '2024-02-29', '23:59:59.999', '2024-02-29 23:59:59.123456', '2038-01-19 03:14:07.999999', 2155,"
                    + " 'abc', '" + EMOJI_TEXT + "', REPEAT('x', 1000), 0x00010203, 0x00ff00ff, 0x00000100ff00,"
                    + " 'medium', 'a,c', '{\"k\": [1, 2.5, \"\uD83D\uDE00\", null], \"n\": {\"x\": true}}'),"
                    + " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
                    + " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
                    + " (3, 127, 0, 32767, 8388607, 2147483647, 9223372036854775807, 0,"
                    + " -1.25e-10, 1.7976931348623157e308, -99999999999999999999.9999999999, b'0', FALSE,"
                    + " '1000-01-01', '-838:59:59', '1000-01-01 00:00:00.000000', '1970-01-01 00:00:01.000000', 1901,"
                    + " '', '', '', 0x00000000, '', '', 'small', '', '[]')");
        }
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void readsEveryColumnTypeAsTheShardReturnsIt(Driver driver, Mode mode) throws SQLException {
        Compare compare = new Compare(cluster, driver, mode);
        ResultSnapshot all = compare.query("SELECT * FROM all_types ORDER BY id");
        ResultSnapshot filtered = compare.query("SELECT * FROM all_types WHERE id >= ? ORDER BY id", 1);

        assertThat(filtered).isEqualTo(all);
        assertThat(all.rows()).hasSize(3);
        assertThat(all.cell(0, "c_varchar").text()).isEqualTo(EMOJI_TEXT);
        assertThat(all.cell(0, "c_blob").object()).isEqualTo("0x00000100ff00");
        assertThat(all.cell(0, "c_binary").object()).isEqualTo("0x00010203");
        assertThat(all.cell(0, "c_decimal").object()).isEqualTo(new BigDecimal("12345678901234567890.0123456789"));
        assertThat(all.cell(0, "c_bigint_u").text()).isEqualTo("18446744073709551615");
        assertThat(all.cell(0, "c_bigint").text()).isEqualTo("-9223372036854775808");
        assertThat(all.cell(0, "c_datetime").text()).startsWith("2024-02-29").contains("23:59:59.123456");
        assertThat(all.cell(0, "c_json").text()).contains("\uD83D\uDE00");
        assertThat(all.cell(0, "c_set").text()).isEqualTo("a,c");
        assertThat(all.rows().get(1).subList(1, all.columns().size()))
                .allSatisfy(cell -> assertThat(cell.text()).isNull());
        assertThat(all.cell(2, "c_blob").object()).isEqualTo("0x");
        assertThat(all.cell(2, "c_varchar").text()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void returnsParametersAndExpressionsAsTheShardDoes(Driver driver, Mode mode) throws SQLException {
        ResultSnapshot result = new Compare(cluster, driver, mode)
                .query(
                        "SELECT ? AS p_int, ? AS p_text, ? AS p_null, ? AS p_bytes, ? AS p_decimal, ? AS p_date,"
                                + " NULL AS n, 1 + 1 AS two, 0.1 + 0.2 AS sum, CAST(1.5 AS DOUBLE) AS dbl,"
                                + " LENGTH(?) AS bytes_len, CHAR_LENGTH(?) AS chars",
                        42,
                        EMOJI_TEXT,
                        null,
                        new byte[] {0, 1, 0, (byte) 0xff},
                        new BigDecimal("-1.50"),
                        LocalDate.of(2024, 2, 29),
                        EMOJI_TEXT,
                        EMOJI_TEXT);

        assertThat(result.rows()).hasSize(1);
        assertThat(result.cell(0, "p_int").text()).isEqualTo("42");
        assertThat(result.cell(0, "p_text").text()).isEqualTo(EMOJI_TEXT);
        assertThat(result.cell(0, "p_null").text()).isNull();
        assertThat(result.cell(0, "n").text()).isNull();
        assertThat(result.cell(0, "sum").text()).isEqualTo("0.3");
        int utf8Bytes = EMOJI_TEXT.getBytes(StandardCharsets.UTF_8).length;
        int codePoints = EMOJI_TEXT.codePointCount(0, EMOJI_TEXT.length());
        assertThat(result.cell(0, "bytes_len").text()).isEqualTo(String.valueOf(utf8Bytes));
        assertThat(result.cell(0, "chars").text()).isEqualTo(String.valueOf(codePoints));
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void writesEveryColumnTypeAsTheShardStoresIt(Driver driver, Mode mode) throws SQLException {
        int viaRouter = 100 + Clients.ordinal(driver, mode);
        int direct = 200 + Clients.ordinal(driver, mode);
        try (Connection c = cluster.proxied(driver, mode)) {
            insertTypedRow(c, viaRouter, false);
            insertTypedRow(c, viaRouter + 50, true);
        }
        try (Connection c = cluster.direct(driver, mode)) {
            insertTypedRow(c, direct, false);
            insertTypedRow(c, direct + 50, true);
        }
        try (Connection c = cluster.direct()) {
            String select = "SELECT " + COLUMNS + " FROM all_types_written WHERE id = ?";
            List<ResultSnapshot> rows = List.of(
                    Compare.query(c, Mode.TEXT, select, viaRouter),
                    Compare.query(c, Mode.TEXT, select, direct),
                    Compare.query(c, Mode.TEXT, select, viaRouter + 50),
                    Compare.query(c, Mode.TEXT, select, direct + 50));
            assertThat(rows.get(0).rows()).hasSize(1).isEqualTo(rows.get(1).rows());
            assertThat(rows.get(2).rows()).hasSize(1).isEqualTo(rows.get(3).rows());
            ResultSnapshot written = rows.get(0);
            assertThat(written.cell(0, "c_varchar").text()).isEqualTo(EMOJI_TEXT);
            assertThat(written.cell(0, "c_blob").object()).isEqualTo("0x00000100ff00");
            assertThat(written.cell(0, "c_datetime").text()).contains("23:59:59.123456");
            assertThat(written.cell(0, "c_decimal").text()).isEqualTo("-12345678901234567890.0123456789");
            assertThat(written.cell(0, "c_bigint_u").text()).isEqualTo("18446744073709551615");
            assertThat(rows.get(2).rows().get(0))
                    .allSatisfy(cell -> assertThat(cell.text()).isNull());
        }
    }

    /** One row bound through every setter family; {@code nulls} binds SQL NULL everywhere. */
    private static void insertTypedRow(Connection c, int id, boolean nulls) throws SQLException {
        String marks = "?, ".repeat(26) + "?";
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO all_types_written (id, " + COLUMNS + ") VALUES (" + marks + ")")) {
            ps.setInt(1, id);
            if (nulls) {
                for (int i = 2; i <= 27; i++) {
                    ps.setNull(i, Types.NULL);
                }
            } else {
                ps.setByte(2, (byte) -128);
                ps.setShort(3, (short) 255);
                ps.setShort(4, (short) -32768);
                ps.setInt(5, -8388608);
                ps.setInt(6, Integer.MIN_VALUE);
                ps.setLong(7, Long.MIN_VALUE);
                ps.setBigDecimal(8, new BigDecimal("18446744073709551615"));
                ps.setFloat(9, 3.5f);
                ps.setDouble(10, -2.718281828459045);
                ps.setBigDecimal(11, new BigDecimal("-12345678901234567890.0123456789"));
                ps.setInt(12, 0xA5);
                ps.setBoolean(13, true);
                ps.setObject(14, LocalDate.of(2024, 2, 29));
                ps.setObject(15, LocalTime.of(23, 59, 59, 999_000_000));
                ps.setObject(16, LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_000));
                ps.setObject(17, LocalDateTime.of(2038, 1, 19, 3, 14, 7, 999_999_000));
                ps.setInt(18, 2155);
                ps.setString(19, "abc");
                ps.setString(20, EMOJI_TEXT);
                ps.setString(21, "x".repeat(1000));
                ps.setBytes(22, new byte[] {0, 1, 2, 3});
                ps.setBytes(23, new byte[] {0, (byte) 0xff, 0, (byte) 0xff});
                ps.setBytes(24, new byte[] {0, 0, 1, 0, (byte) 0xff, 0});
                ps.setString(25, "medium");
                ps.setString(26, "a,c");
                ps.setString(27, "{\"k\": [1, 2.5, \"\uD83D\uDE00\", null]}");
            }
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }
}
