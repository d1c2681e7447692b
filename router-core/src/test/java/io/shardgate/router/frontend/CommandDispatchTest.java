package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.execute.PreparedStatementCommands;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.session.StatementScanner;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the command dispatch answers itself, against a recording session: no backend, no channel. */
class CommandDispatchTest {
    private static final int MAX_STATEMENT_BYTES = 32;

    private final RecordingSession session = new RecordingSession(services(), Collations.UTF8MB4_GENERAL_CI);
    private final PreparedStatementCommands prepared = new PreparedStatementCommands(session);
    private final CommandDispatch dispatch = new CommandDispatch(
            session,
            session,
            session.clientText(),
            new SessionReset(session, session, session.state(), prepared, new byte[20]),
            prepared,
            new SessionActivity());

    private static FrontendServices services() {
        ServerSettings settings = new ServerSettings(
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                MAX_STATEMENT_BYTES,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
        return new FrontendServices(
                settings,
                null,
                null,
                null,
                null,
                null,
                0,
                null,
                null,
                null,
                new RouterMetrics(),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    /** Dispatches a packet of {@code bytes} and checks the dispatch let go of it. */
    private void dispatch(byte... bytes) {
        Packet packet = new Packet(0, Unpooled.buffer(bytes.length + 1).writeBytes(bytes));
        dispatch.dispatch(packet);
        assertThat(packet.refCnt())
                .as("the client's packet is released or passed on")
                .isZero();
    }

    private static byte[] command(Command command, String text, java.nio.charset.Charset charset) {
        byte[] t = text.getBytes(charset);
        byte[] out = new byte[t.length + 1];
        out[0] = (byte) command.code();
        System.arraycopy(t, 0, out, 1, t.length);
        return out;
    }

    @Test
    void anEmptyPacketOrUnknownCommandByteIsAnUnknownCommand() {
        dispatch();
        dispatch((byte) 0x7F);
        assertThat(session.calls)
                .containsExactly("reply 1 ERR 1047 Unknown command", "reply 1 ERR 1047 Unknown command");
    }

    @Test
    void pingIsAnsweredByTheRouterWithTheSessionsStatus() {
        dispatch((byte) Command.COM_PING.code());
        assertThat(session.calls).containsExactly("reply 1 OK status " + ServerStatus.SERVER_STATUS_AUTOCOMMIT);
    }

    @Test
    void quitClosesTheSession() {
        dispatch((byte) Command.COM_QUIT.code());
        assertThat(session.calls).containsExactly("close");
    }

    @Test
    void replicationCommandsAreRefusedNotPassedOn() {
        dispatch((byte) Command.COM_BINLOG_DUMP.code(), (byte) 0, (byte) 0, (byte) 0, (byte) 0);
        assertThat(session.calls)
                .singleElement()
                .satisfies(call -> assertThat(call)
                        .startsWith("reply 1 ERR 1235 ")
                        .contains("COM_BINLOG_DUMP through the router"));
    }

    @Test
    void statementTextOverMaxStatementBytesIsRefusedAndTheSessionStays() {
        String query = "SELECT '" + "x".repeat(MAX_STATEMENT_BYTES) + "'";
        String prepare = "SELECT ? FROM t WHERE c = '" + "x".repeat(20) + "'";
        dispatch(command(Command.COM_QUERY, query, StandardCharsets.UTF_8));
        dispatch(command(Command.COM_STMT_PREPARE, prepare, StandardCharsets.UTF_8));
        assertThat(session.calls)
                .containsExactly(
                        "reply 1 ERR 1153 Statement of " + query.length()
                                + " bytes is larger than server.max_statement_bytes (32 bytes)",
                        "reply 1 ERR 1153 Statement of " + prepare.length()
                                + " bytes is larger than server.max_statement_bytes (32 bytes)");
    }

    @Test
    void textTheRouterCannotDecodeIsRefused() {
        session.state().apply(StatementScanner.scan("SET NAMES armscii8"));
        dispatch(command(Command.COM_QUERY, "SELECT 'é'", StandardCharsets.ISO_8859_1));
        dispatch(command(Command.COM_INIT_DB, "sché", StandardCharsets.ISO_8859_1));
        assertThat(session.calls)
                .hasSize(2)
                .allSatisfy(call -> assertThat(call)
                        .startsWith("reply 1 ERR 1235 ")
                        .contains("statement text with bytes beyond ASCII"));
    }
}
