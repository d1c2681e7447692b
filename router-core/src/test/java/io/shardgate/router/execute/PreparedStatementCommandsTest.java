package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ComStmtPrepareOk;
import io.shardgate.protocol.packet.ParameterType;
import io.shardgate.protocol.row.BinaryValue;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.fakebackend.Reply;
import io.shardgate.router.frontend.FakeShardsSession;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PreparedStatementCommands} through a real session on two fake shards (a table ranged
 * below 1000 on hostgroup 10, the rest on 20): COM_STMT_PREPARE is prepared at once on the table's
 * first hostgroup and the client gets the router's statement id; each COM_STMT_EXECUTE goes to the
 * shard its bound key names, with that connection's own statement id, preparing the statement
 * there first when that connection has not; COM_STMT_CLOSE answers nothing and sends nothing (the
 * backends keep their copies); an id the router does not know is ERROR 1243.
 */
class PreparedStatementCommandsTest {
    private static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;
    private static final String DELETE = "DELETE FROM accounts WHERE id = ?";

    private final FakeShardsSession session =
            new FakeShardsSession(QueryRouterSingleShardTest.YAML, "bank", QueryRouterSingleShardTest.noTwoPhase());
    private final RecordingBackend shard10 = session.shard(10);
    private final RecordingBackend shard20 = session.shard(20);

    @BeforeEach
    void backendIds() {
        // each server numbers its statements its own way, none as the router does
        shard10.answer("COM_STMT_PREPARE " + DELETE, Reply.prepared(701, 1));
        shard20.answer("COM_STMT_PREPARE " + DELETE, Reply.prepared(802, 1));
    }

    @AfterEach
    void close() {
        session.close();
    }

    /** The client prepares {@code sql}; returns the COM_STMT_PREPARE_OK it heard, its sequence ids checked. */
    private ComStmtPrepareOk prepare(String sql, int parameters) {
        session.sendCommand(
                out -> out.writeByte(Command.COM_STMT_PREPARE.code()).writeCharSequence(sql, StandardCharsets.UTF_8));
        session.settle();
        List<ByteBuf> packets = frames(session.relayed());
        // the OK, a definition per parameter and their EOF (classic EOF packets)
        assertThat(packets).hasSize(parameters == 0 ? 1 : parameters + 2);
        assertThat((int) packets.get(packets.size() - 1).getUnsignedByte(0)).isEqualTo(parameters == 0 ? 0x00 : 0xFE);
        return ComStmtPrepareOk.read(packets.get(0));
    }

    /** The payloads of the framed {@code bytes}, whose sequence ids must count up from 1. */
    private static List<ByteBuf> frames(byte[] bytes) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        List<ByteBuf> payloads = new ArrayList<>();
        int expected = 1;
        while (in.isReadable()) {
            int length = in.readUnsignedMediumLE();
            assertThat((int) in.readUnsignedByte()).as("sequence id").isEqualTo(expected++);
            payloads.add(in.readSlice(length));
        }
        return payloads;
    }

    /** The client executes statement {@code id} with {@code key} bound as a BIGINT; returns what it heard. */
    private List<String> execute(long id, long key) {
        ParameterType type = new ParameterType(MySqlType.LONGLONG, false);
        ByteBuf value = Unpooled.buffer();
        BinaryValue.write(value, key, MySqlType.LONGLONG);
        byte[] raw = new byte[value.readableBytes()];
        value.readBytes(raw);
        ComStmtExecute execute = new ComStmtExecute(
                id,
                ComStmtExecute.CURSOR_TYPE_NO_CURSOR,
                1,
                new byte[1],
                true,
                List.of(type),
                List.of(""),
                java.util.Arrays.asList(raw));
        session.sendCommand(out -> execute.write(out, session.capabilities()));
        session.settle();
        return session.answers();
    }

    /** The client sends {@code command} (an id only: COM_STMT_CLOSE or _RESET) for statement {@code id}. */
    private List<String> send(Command command, long id) {
        session.sendCommand(out -> out.writeByte(command.code()).writeIntLE((int) id));
        session.settle();
        return session.answers();
    }

    @Test
    void prepareRunsAtOnceOnTheTablesFirstShardAndTheClientGetsTheRoutersId() {
        ComStmtPrepareOk ok = prepare(DELETE, 1);

        assertThat(ok.statementId()).as("the router's id, not shard 10's 701").isEqualTo(1);
        assertThat(ok.numParams()).isEqualTo(1);
        assertThat(shard10.sent()).containsExactly("COM_STMT_PREPARE " + DELETE);
        assertThat(shard20.sent()).isEmpty();

        shard10.answer("COM_STMT_PREPARE UPDATE accounts SET balance = 0 WHERE id = ?", Reply.prepared(702, 1));
        ComStmtPrepareOk second = prepare("UPDATE accounts SET balance = 0 WHERE id = ?", 1);
        assertThat(second.statementId()).as("the router numbers its statements").isEqualTo(2);
    }

    @Test
    void executionsGoToTheShardTheirKeyNamesEachPreparingThereFirstWhenNeeded() {
        long id = prepare(DELETE, 1).statementId();
        shard10.answer("COM_STMT_EXECUTE 701", Reply.ok(1, 0, AUTOCOMMIT, 0));
        shard20.answer("COM_STMT_EXECUTE 802", Reply.ok(2, 0, AUTOCOMMIT, 0));
        shard20.answer("COM_STMT_EXECUTE 802", Reply.ok(3, 0, AUTOCOMMIT, 0));

        assertThat(execute(id, 1001)).containsExactly("OK affected=2 status=0x0002");
        assertThat(shard20.sent())
                .as("prepared on shard 20 first, then executed with shard 20's id")
                .containsExactly("COM_STMT_PREPARE " + DELETE, "COM_STMT_EXECUTE 802");
        assertThat(shard10.sent()).containsExactly("COM_STMT_PREPARE " + DELETE);

        assertThat(execute(id, 5)).containsExactly("OK affected=1 status=0x0002");
        assertThat(shard10.sent())
                .as("the connection it was prepared on keeps its copy: executed with shard 10's id")
                .containsExactly("COM_STMT_PREPARE " + DELETE, "COM_STMT_EXECUTE 701");

        assertThat(execute(id, 1500)).containsExactly("OK affected=3 status=0x0002");
        assertThat(shard20.sent())
                .containsExactly("COM_STMT_PREPARE " + DELETE, "COM_STMT_EXECUTE 802", "COM_STMT_EXECUTE 802");
        assertThat(shard10.sent()).hasSize(2);
    }

    @Test
    void anExecutionOnAnotherPooledConnectionPreparesThereFirst() {
        long id = prepare(DELETE, 1).statementId();
        RecordingBackend.Connection used = session.connection(20); // idle, borrowed first
        execute(id, 1001);
        assertThat(used.received()).containsExactly("COM_STMT_PREPARE " + DELETE, "COM_STMT_EXECUTE 802");
        assertThat(shard20.idle()).as("returned after the execution").isEqualTo(2);
        // the session's next borrow asks for that connection again, but the server closed it
        used.lose();
        shard20.answer("COM_STMT_PREPARE " + DELETE, Reply.prepared(803, 1));
        shard20.answer("COM_STMT_EXECUTE 803", Reply.ok(1, 0, AUTOCOMMIT, 0));

        List<String> answer = execute(id, 1001);

        assertThat(shard20.sent())
                .as("the other connection had never prepared it: prepared there, executed with its id")
                .containsExactly(
                        "COM_STMT_PREPARE " + DELETE,
                        "COM_STMT_EXECUTE 802",
                        "COM_STMT_PREPARE " + DELETE,
                        "COM_STMT_EXECUTE 803");
        assertThat(used.received()).hasSize(2);
        assertThat(answer).containsExactly("OK affected=1 status=0x0002");
    }

    @Test
    void closeAnswersNothingSendsNothingAndForgetsTheId() {
        long id = prepare(DELETE, 1).statementId();
        execute(id, 1001);
        shard10.clearSent();
        shard20.clearSent();

        assertThat(send(Command.COM_STMT_CLOSE, id)).isEmpty();
        assertThat(shard10.sent()).as("the backends keep their copies").isEmpty();
        assertThat(shard20.sent()).isEmpty();

        assertThat(execute(id, 1001))
                .containsExactly("ERR 1243 (HY000): Unknown prepared statement handler (1) given to COM_STMT_EXECUTE");
        assertThat(shard10.sent()).isEmpty();
        assertThat(shard20.sent()).isEmpty();
    }

    @Test
    void anUnknownStatementIdIsError1243() {
        prepare(DELETE, 1);
        shard10.clearSent();

        assertThat(execute(42, 5))
                .containsExactly("ERR 1243 (HY000): Unknown prepared statement handler (42) given to COM_STMT_EXECUTE");
        assertThat(send(Command.COM_STMT_RESET, 42))
                .containsExactly("ERR 1243 (HY000): Unknown prepared statement handler (42) given to COM_STMT_RESET");
        assertThat(shard10.sent()).isEmpty();
        assertThat(shard20.sent()).isEmpty();
        assertThat(session.open()).isTrue();
    }
}
