package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Driver;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Results and statements at the size limits: 100,000 rows, rows whose packet is exactly
 * 0xFFFFFF bytes (followed by an empty packet), rows and statements larger than 16 MiB.
 */
@ExtendWith(ProxyClusterExtension.class)
class LargeResultsIT {

    static final int ROWS = 100_000;
    static final int MAX_PAYLOAD = 0xFFFFFF;
    /** Text row of one LONGBLOB: 0xFD + 3-byte length + data = exactly one full packet. */
    static final int TEXT_EDGE = MAX_PAYLOAD - 4;
    /** Binary row of one LONGBLOB: 0x00 header + 1-byte NULL bitmap + 0xFD + 3-byte length + data. */
    static final int BINARY_EDGE = MAX_PAYLOAD - 6;

    static final int OVER_16_MIB = 20 * 1024 * 1024 + 17;

    private static ProxyCluster cluster;

    @BeforeAll
    static void createTables(ProxyCluster shared) throws SQLException {
        cluster = shared;
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS big_result, huge_rows");
            s.execute("CREATE TABLE big_result (id BIGINT PRIMARY KEY, grp INT NOT NULL, label VARCHAR(64) NOT NULL,"
                    + " amount DECIMAL(12,2) NOT NULL, created DATETIME(6) NOT NULL, note VARCHAR(10) NULL)"
                    + " DEFAULT CHARSET=utf8mb4");
            s.execute("INSERT INTO big_result SELECT seq, seq % 97, CONCAT('row-', seq, '-\uD83D\uDE00'), seq * 1.25,"
                    + " TIMESTAMP'2024-01-01 00:00:00' + INTERVAL seq SECOND + INTERVAL seq MICROSECOND,"
                    + " IF(seq % 10 = 0, NULL, 'n') FROM seq_1_to_" + ROWS);
            s.execute("CREATE TABLE huge_rows (id INT PRIMARY KEY, payload LONGBLOB NOT NULL)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO huge_rows VALUES (?, ?)")) {
                int[] sizes = {TEXT_EDGE, BINARY_EDGE, OVER_16_MIB};
                for (int id = 1; id <= sizes.length; id++) {
                    ps.setInt(1, id);
                    ps.setBytes(2, payload(id, sizes[id - 1]));
                    ps.executeUpdate();
                }
            }
        }
    }

    /** Row count, a SHA-256 over every cell's text, and the first and last rows: a whole result in brief. */
    record Digest(long rows, String sha256, String first, String last) {}

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void relaysOneHundredThousandRows(Driver driver, Mode mode) throws SQLException {
        String sql = "SELECT * FROM big_result WHERE id > ? ORDER BY id";
        Digest viaRouter;
        Digest direct;
        try (Connection c = cluster.proxied(driver, mode)) {
            viaRouter = digest(c, sql);
        }
        try (Connection c = cluster.direct(driver, mode)) {
            direct = digest(c, sql);
        }
        assertThat(viaRouter).isEqualTo(direct);
        assertThat(viaRouter.rows()).isEqualTo(ROWS);
        assertThat(viaRouter.first()).startsWith("1|1|row-1-\uD83D\uDE00|1.25|2024-01-01");
        assertThat(viaRouter.last()).startsWith(ROWS + "|").endsWith("|null");
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void relaysRowsAtAndAbove16MiB(Driver driver, Mode mode) throws SQLException {
        int[] sizes = {TEXT_EDGE, BINARY_EDGE, OVER_16_MIB};
        try (Connection viaRouter = cluster.proxied(driver, mode);
                Connection direct = cluster.direct(driver, mode)) {
            for (int id = 1; id <= sizes.length; id++) {
                byte[] expected = payload(id, sizes[id - 1]);
                byte[] throughRouter = readPayload(viaRouter, id);
                assertThat(throughRouter.length).as("payload %d length", id).isEqualTo(expected.length);
                assertThat(sha256(throughRouter)).as("payload %d", id).isEqualTo(sha256(expected));
                assertThat(sha256(readPayload(direct, id))).isEqualTo(sha256(expected));
                // the session is still in step with the server after the split packets
                assertThat(Compare.query(viaRouter, mode, "SELECT ? AS after", id)
                                .cell(0, "after")
                                .text())
                        .isEqualTo(String.valueOf(id));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.shardgate.it.proxy.Clients#all")
    void acceptsAStatementLargerThan16MiB(Driver driver, Mode mode) throws SQLException {
        int id = 100 + Clients.ordinal(driver, mode);
        byte[] payload = payload(id, 17 * 1024 * 1024 + id);
        try (Connection c = cluster.proxied(driver, mode);
                PreparedStatement ps = c.prepareStatement("INSERT INTO huge_rows VALUES (?, ?)")) {
            ps.setInt(1, id);
            ps.setBytes(2, payload);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        try (Connection c = cluster.direct();
                PreparedStatement ps =
                        c.prepareStatement("SELECT LENGTH(payload), SHA2(payload, 256) FROM huge_rows WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(payload.length);
                assertThat(rs.getString(2)).isEqualTo(sha256(payload));
            }
        }
    }

    private static byte[] readPayload(Connection c, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT payload FROM huge_rows WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                byte[] bytes = rs.getBytes(1);
                assertThat(rs.next()).isFalse();
                return bytes;
            }
        }
    }

    private static Digest digest(Connection c, String sql) throws SQLException {
        MessageDigest sha = sha256();
        long rows = 0;
        String first = null;
        String last = null;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, 0);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= columns; i++) {
                        row.append(i == 1 ? "" : "|").append(rs.getString(i));
                    }
                    sha.update(row.append('\n').toString().getBytes(StandardCharsets.UTF_8));
                    rows++;
                    last = row.toString().strip();
                    first = first == null ? last : first;
                }
            }
        }
        return new Digest(rows, HexFormat.of().formatHex(sha.digest()), first, last);
    }

    /** Deterministic bytes for a row: pseudo-random, with 0x00 every 7th byte. */
    static byte[] payload(int id, int size) {
        byte[] bytes = new byte[size];
        new SplittableRandom(id).nextBytes(bytes);
        for (int i = 0; i < size; i += 7) {
            bytes[i] = 0;
        }
        return bytes;
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
