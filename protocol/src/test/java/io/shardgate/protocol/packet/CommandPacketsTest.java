package io.shardgate.protocol.packet;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.Wire;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.MySqlType;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandPacketsTest {
    private static final Capabilities PLAIN = new Capabilities(0x000ea209);
    private static final Capabilities ATTRS = PLAIN.with(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES);

    @Test
    void comQueryFromCapturedSession() {
        byte[] payload = CapturedPackets.first("text-resultset").payload();
        ComQuery q = Wire.roundTrip(payload, in -> ComQuery.read(in, PLAIN), (p, out) -> p.write(out, PLAIN));
        assertThat(q.sql()).isEqualTo("SELECT 1 AS one, 'two' AS two");
        ByteBuf buf = Unpooled.wrappedBuffer(payload);
        assertThat(ComQuery.readSql(buf, PLAIN, StandardCharsets.UTF_8)).isEqualTo(q.sql());
        assertThat(buf.readerIndex()).isZero();
        buf.release();
    }

    @Test
    void comQueryWithQueryAttributesSkipsThemToFindTheSql() {
        // 1 attribute: no NULLs, bound, VARCHAR named "n", value "v"; then the SQL
        byte[] payload = hex("03 01 01 00 01 0f00 016e 0176" + "53454c4543542031");
        ComQuery q = Wire.roundTrip(payload, in -> ComQuery.read(in, ATTRS), (p, out) -> p.write(out, ATTRS));
        assertThat(q.parameterCount()).isEqualTo(1);
        assertThat(q.rawAttributes()).isEqualTo(hex("00 01 0f00 016e 0176"));
        assertThat(q.sql()).isEqualTo("SELECT 1");
        ByteBuf buf = Unpooled.wrappedBuffer(payload);
        assertThat(ComQuery.sqlOffset(buf, ATTRS)).isEqualTo(11);
        buf.release();
        byte[] none = hex("03 00 01" + "53454c4543542032");
        ComQuery plain = Wire.roundTrip(none, in -> ComQuery.read(in, ATTRS), (p, out) -> p.write(out, ATTRS));
        assertThat(plain.parameterCount()).isZero();
        assertThat(plain.sql()).isEqualTo("SELECT 2");
        Wire.truncationsFailTyped(payload, in -> ComQuery.read(in, ATTRS));
        Wire.failsTyped(hex("02"), in -> ComQuery.read(in, PLAIN));
    }

    @Test
    void simpleCommandsFromCapturedSession() {
        ComInitDb init =
                Wire.roundTrip(CapturedPackets.first("com-init-db").payload(), ComInitDb::read, ComInitDb::write);
        assertThat(init.schema()).isEqualTo("sgtest");
        assertThat(Command.of(CapturedPackets.first("com-ping").payload()[0])).isEqualTo(Command.COM_PING);
        assertThat(Command.of(CapturedPackets.first("com-quit").payload()[0])).isEqualTo(Command.COM_QUIT);
        ComStmtClose close = Wire.roundTrip(
                CapturedPackets.first("com-stmt-close").payload(), ComStmtClose::read, ComStmtClose::write);
        assertThat(close.statementId()).isEqualTo(1);
        ComStmtPrepare prepare = Wire.roundTrip(
                CapturedPackets.first("stmt-prepare-response").payload(), ComStmtPrepare::read, ComStmtPrepare::write);
        assertThat(prepare.sql()).isEqualTo("SELECT * FROM types WHERE id >= ? ORDER BY id");
    }

    @Test
    void smallCommandsByteExact() {
        assertThat(Wire.roundTrip(hex("19 2a000000"), ComStmtClose::read, ComStmtClose::write)
                        .statementId())
                .isEqualTo(42);
        assertThat(Wire.roundTrip(hex("1a ffffffff"), ComStmtReset::read, ComStmtReset::write)
                        .statementId())
                .isEqualTo(0xFFFFFFFFL);
        assertThat(Wire.roundTrip(hex("1c 07000000 e8030000"), ComStmtFetch::read, ComStmtFetch::write))
                .isEqualTo(new ComStmtFetch(7, 1000));
        assertThat(Wire.roundTrip(hex("1b 0100"), ComSetOption::read, ComSetOption::write)
                        .option())
                .isEqualTo(ComSetOption.MYSQL_OPTION_MULTI_STATEMENTS_OFF);
        ComFieldList fl = Wire.roundTrip(hex("04 7400 6925"), ComFieldList::read, ComFieldList::write);
        assertThat(fl).isEqualTo(new ComFieldList("t", "i%"));
        ComStmtSendLongData ld =
                Wire.roundTrip(hex("18 05000000 0200 00ff00"), ComStmtSendLongData::read, ComStmtSendLongData::write);
        assertThat(ld.statementId()).isEqualTo(5);
        assertThat(ld.parameterId()).isEqualTo(2);
        assertThat(ld.data()).isEqualTo(hex("00ff00"));
        Wire.failsTyped(hex("19 2a00"), ComStmtClose::read);
        Wire.failsTyped(hex("1a 2a000000"), ComStmtClose::read);
        Wire.failsTyped(hex(""), ComInitDb::read);
        Wire.failsTyped(hex("1c 07000000"), ComStmtFetch::read);
        Wire.failsTyped(hex("04 74"), ComFieldList::read);
    }

    @Test
    void comStmtExecuteFromCapturedSession() {
        byte[] payload = CapturedPackets.load("binary-resultset").get(0).payload();
        ComStmtExecute e = Wire.roundTrip(
                payload, in -> ComStmtExecute.read(in, PLAIN, 1, List.of()), (p, out) -> p.write(out, PLAIN));
        assertThat(e.statementId()).isEqualTo(1);
        assertThat(e.flags()).isEqualTo(ComStmtExecute.CURSOR_TYPE_NO_CURSOR);
        assertThat(e.iterationCount()).isEqualTo(1);
        assertThat(e.newParamsBound()).isTrue();
        assertThat(e.types()).containsExactly(new ParameterType(MySqlType.LONGLONG, false));
        assertThat(e.values().get(0)).isEqualTo(hex("0100000000000000"));
        Wire.truncationsFailTyped(payload, in -> ComStmtExecute.read(in, PLAIN, 1, List.of()));
    }

    @Test
    void comStmtExecuteWithNullsReusedTypesAndLongData() {
        List<ParameterType> bound = List.of(
                new ParameterType(MySqlType.VAR_STRING, false),
                new ParameterType(MySqlType.LONG, true),
                new ParameterType(MySqlType.BLOB, false),
                new ParameterType(MySqlType.DATETIME, false));
        // param 1 NULL (bitmap 0x02), not rebound, param 2 sent as long data
        byte[] payload = hex("17 09000000 00 01000000 02 00" + "03616263" + "" + "07e8070229 0d0e0f");
        BitSet longData = new BitSet();
        longData.set(2);
        ComStmtExecute e = Wire.roundTrip(
                payload, in -> ComStmtExecute.read(in, PLAIN, 4, bound, longData), (p, out) -> p.write(out, PLAIN));
        assertThat(e.isNull(1)).isTrue();
        assertThat(e.values().get(0)).isEqualTo(hex("03616263"));
        assertThat(e.values().get(1)).isNull();
        assertThat(e.values().get(2)).isNull();
        assertThat(e.values().get(3)).isEqualTo(hex("07e8070229 0d0e0f"));
        assertThat(e.types()).isEqualTo(bound);
        assertThatThrownBy(() -> Wire.read(payload, in -> ComStmtExecute.read(in, PLAIN, 4, List.of())))
                .isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void comStmtExecuteWithQueryAttributesCountsAndNames() {
        byte[] payload = hex("17 01000000 08 01000000 01 00 01 0380 0161 05000000");
        ComStmtExecute e = Wire.roundTrip(
                payload, in -> ComStmtExecute.read(in, ATTRS, 0, List.of()), (p, out) -> p.write(out, ATTRS));
        assertThat(e.types()).containsExactly(new ParameterType(MySqlType.LONG, true));
        assertThat(e.names()).containsExactly("a");
        ComStmtExecute noParams = Wire.roundTrip(
                hex("17 01000000 00 01000000"),
                in -> ComStmtExecute.read(in, ATTRS, 0, List.of()),
                (p, out) -> p.write(out, ATTRS));
        assertThat(noParams.parameterCount()).isZero();
    }

    @Test
    void comChangeUserByteExact() {
        Capabilities caps = PLAIN.with(CapabilityFlags.CLIENT_CONNECT_ATTRS);
        ComChangeUser cu =
                new ComChangeUser("bob", hex("0102"), "db", 45, "mysql_native_password", Map.of("_os", "Linux"));
        byte[] bytes = Wire.write(cu, (p, out) -> p.write(out, caps));
        assertThat(bytes)
                .isEqualTo(hex("11 626f6200 020102 646200 2d00 6d7973716c5f6e61746976655f70617373776f726400"
                        + "0a 035f6f73 054c696e7578"));
        ComChangeUser back = Wire.roundTrip(bytes, in -> ComChangeUser.read(in, caps), (p, out) -> p.write(out, caps));
        assertThat(back.user()).isEqualTo("bob");
        assertThat(back.authResponse()).isEqualTo(hex("0102"));
        assertThat(back.schema()).isEqualTo("db");
        assertThat(back.characterSet()).isEqualTo(45);
        assertThat(back.authPluginName()).isEqualTo("mysql_native_password");
        assertThat(back.attributes()).containsExactly(Map.entry("_os", "Linux"));
        Wire.truncationsFailTyped(bytes, in -> ComChangeUser.read(in, caps));
    }

    @Test
    void commandAndTypeCodes() {
        for (Command c : Command.values()) {
            assertThat(Command.of(c.code())).isSameAs(c);
        }
        assertThat(Command.of(0x03)).isEqualTo(Command.COM_QUERY);
        assertThat(Command.of(0x17)).isEqualTo(Command.COM_STMT_EXECUTE);
        assertThat(Command.of(0x1F)).isEqualTo(Command.COM_RESET_CONNECTION);
        assertThat(Command.of(0x99)).isNull();
        assertThat(Command.of(-1)).isNull();
        assertThat(Command.of(256)).isNull();
        for (MySqlType t : MySqlType.values()) {
            assertThat(MySqlType.of(t.code())).isSameAs(t);
        }
        assertThat(MySqlType.of(245)).isEqualTo(MySqlType.JSON);
        assertThat(MySqlType.of(0x0F)).isEqualTo(MySqlType.VARCHAR);
        assertThat(MySqlType.of(0x30)).isNull();
    }
}
