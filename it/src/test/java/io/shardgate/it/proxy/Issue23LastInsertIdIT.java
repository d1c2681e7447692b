package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.type.Command;
import io.shardgate.router.Shardgate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 23 ({@code main.metadata}: {@code SELECT LAST_INSERT_ID()} of a new session gave another
 * session's id): LAST_INSERT_ID() belongs to the server session, and a client session that gets a
 * pooled connection an earlier client left after an INSERT (a LAST_INSERT_ID(expr), a CALL that
 * inserts) must still read 0, as on a new connection to MariaDB — with multiplexing on and off.
 */
@ExtendWith(ProxyClusterExtension.class)
class Issue23LastInsertIdIT {
    /** Before a statement of the parameters: run it with COM_STMT_PREPARE and COM_STMT_EXECUTE. */
    private static final String PREPARED = "PREPARED ";

    private final ProxyCluster cluster;

    Issue23LastInsertIdIT(ProxyCluster shared) {
        this.cluster = shared;
    }

    @BeforeAll
    static void tables(ProxyCluster shared) throws SQLException {
        try (Connection c = shared.direct();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + ProxyCluster.SCHEMA
                    + ".i23_ids (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(10))");
            s.execute("CREATE OR REPLACE PROCEDURE " + ProxyCluster.SCHEMA
                    + ".i23_add() INSERT INTO i23_ids (note) VALUES ('call')");
        }
    }

    @ParameterizedTest(name = "multiplexing {0}, after {1}")
    @CsvSource({
        "true, INSERT INTO i23_ids (note) VALUES ('a')",
        "false, INSERT INTO i23_ids (note) VALUES ('a')",
        "true, REPLACE INTO i23_ids (note) VALUES ('r')",
        "true, SELECT LAST_INSERT_ID(7)",
        "false, SELECT LAST_INSERT_ID(7)",
        "true, UPDATE i23_ids SET note = 'u' WHERE id = LAST_INSERT_ID(id) LIMIT 1",
        "true, CALL i23_add()",
        "false, CALL i23_add()",
        "true, PREPARED CALL i23_add()",
        "true, PREPARED SELECT LAST_INSERT_ID(7)",
        "false, PREPARED SELECT LAST_INSERT_ID(7)",
    })
    void aNewSessionReadsNoLastInsertIdOfAnEarlierOne(boolean multiplexing, String earlier) throws Exception {
        // one backend connection and one event loop: the second session is offered the first one's
        try (Shardgate router = cluster.oneConnectionRouter(multiplexing)) {
            List<String> direct =
                    script(cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, earlier);
            List<String> viaRouter =
                    script(router.mysqlPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, earlier);
            assertThat(direct.get(0)).as("directly, A holds an id").isEqualTo("A: nonzero");
            assertThat(viaRouter)
                    .as("through Shardgate (multiplexing %s) vs directly, byte for byte", multiplexing)
                    .isEqualTo(direct);
        }
    }

    /**
     * Session A runs {@code earlier} and leaves; then a new session B asks for LAST_INSERT_ID() and
     * {@code @@identity}: the whole responses, in hex. The raw client, like mtr's C client, sends
     * no statement of its own at login (a driver's SETs would make the router reset the connection).
     */
    private static List<String> script(int port, String user, String password, String earlier) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawMySqlClient a = RawMySqlClient.loggedIn(port, user, password, ProxyCluster.SCHEMA)) {
            if (earlier.startsWith(PREPARED)) {
                prepareAndExecute(a, earlier.substring(PREPARED.length()));
            } else {
                a.sendCommand(RawMySqlClient.comQuery(earlier));
                RawResults.readResponse(a, false);
            }
            // A's own server session holds an id now (asked on A's connection: the pool has one);
            // @@identity, since a statement naming LAST_INSERT_ID would itself mark the connection
            List<String> own = response(a, "SELECT @@identity");
            seen.add("A: " + (own.get(3).endsWith(":0130") ? "0" : "nonzero")); // the row: length 1, "0"
        }
        try (RawMySqlClient b = RawMySqlClient.loggedIn(port, user, password, ProxyCluster.SCHEMA)) {
            seen.add("B: " + response(b, "SELECT LAST_INSERT_ID()"));
            seen.add("B @@identity: " + response(b, "SELECT @@identity"));
        }
        return seen;
    }

    /**
     * COM_STMT_PREPARE and COM_STMT_EXECUTE of {@code sql}, which takes no parameter: the
     * execution's OK (a CALL's reports no insert id, whatever the procedure inserted) or binary
     * result set (whose EOF reports none either).
     */
    private static void prepareAndExecute(RawMySqlClient c, String sql) throws Exception {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        byte[] prepare = new byte[1 + text.length];
        prepare[0] = (byte) Command.COM_STMT_PREPARE.code();
        System.arraycopy(text, 0, prepare, 1, text.length);
        c.sendCommand(prepare);
        RawMySqlClient.RawPacket ok = c.readPacket();
        assertThat(ok.isOk()).as("%s", ok).isTrue();
        ByteBuffer prepareOk = ByteBuffer.wrap(ok.payload()).order(ByteOrder.LITTLE_ENDIAN);
        int columns = prepareOk.getShort(5) & 0xFFFF;
        assertThat(prepareOk.getShort(7)).as("no parameters").isZero();
        for (int i = 0; i < (columns == 0 ? 0 : columns + 1); i++) {
            c.readPacket(); // the column definitions and their EOF
        }
        ByteBuffer execute = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
        execute.put((byte) Command.COM_STMT_EXECUTE.code());
        execute.putInt(prepareOk.getInt(1));
        execute.put((byte) 0); // no cursor
        execute.putInt(1); // iteration count
        c.sendCommand(execute.array());
        List<String> response = RawResults.readResponse(c, false);
        assertThat(response).as("%s", sql).isNotEmpty().noneMatch(p -> p.contains(":ff"));
    }

    private static List<String> response(RawMySqlClient c, String sql) throws Exception {
        c.sendCommand(RawMySqlClient.comQuery(sql));
        List<String> packets = RawResults.readResponse(c, false);
        assertThat(packets).as("%s", sql).hasSize(5); // column count, definition, EOF, row, EOF
        return packets;
    }
}
