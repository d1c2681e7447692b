package io.shardgate.protocol.packet;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.CapturedPackets.Captured;
import io.shardgate.protocol.fixture.Wire;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.protocol.type.ServerStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponsePacketsTest {
    /** What the mariadb CLI and MariaDB 10.11 negotiated in the captured session. */
    private static final Capabilities CLI = negotiated("handshake-v10", "handshake-response41");
    /** What capture/psclient.py negotiated: no session tracking, no MariaDB extensions. */
    private static final Capabilities PLAIN = new Capabilities(0x000ea209);

    private static Capabilities negotiated(String server, String client) {
        Capabilities s = Wire.read(CapturedPackets.first(server).payload(), HandshakeV10::read)
                .capabilities();
        Capabilities c = Wire.read(CapturedPackets.first(client).payload(), HandshakeResponse41::read)
                .capabilities();
        return s.and(c);
    }

    @Test
    void okAfterAuthCarriesTheSchemaChange() {
        byte[] payload = CapturedPackets.first("ok-after-auth").payload();
        OkPacket ok = Wire.roundTrip(payload, in -> OkPacket.read(in, CLI), (p, out) -> p.write(out, CLI));
        assertThat(ok.statusFlags())
                .isEqualTo(ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_SESSION_STATE_CHANGED);
        assertThat(ok.info()).isEmpty();
        // SESSION_TRACK_SCHEMA (1), length 7, lenenc "sgtest"
        assertThat(ok.sessionStateChanges()).isEqualTo(hex("0107067367746573 74"));
        Wire.truncationsFailTyped(payload, in -> OkPacket.read(in, CLI));
    }

    @Test
    void okOfInsertCarriesInfoText() {
        byte[] payload = CapturedPackets.first("ok-insert-info").payload();
        OkPacket ok = Wire.roundTrip(payload, in -> OkPacket.read(in, CLI), (p, out) -> p.write(out, CLI));
        assertThat(ok.affectedRows()).isEqualTo(2);
        assertThat(ok.info()).isEqualTo("Records: 2  Duplicates: 0  Warnings: 0");
        assertThat(ok.sessionStateChanges()).isNull();
    }

    @Test
    void okWithoutSessionTrackingAndWithLargeCounts() {
        OkPacket ok = new OkPacket(0, 300, -1L, 3, 1, "", null);
        byte[] bytes = Wire.write(ok, (p, out) -> p.write(out, PLAIN));
        assertThat(bytes).isEqualTo(hex("00 fc2c01 feffffffffffffffff 0300 0100"));
        OkPacket back = Wire.read(bytes, in -> OkPacket.read(in, PLAIN));
        assertThat(Long.toUnsignedString(back.lastInsertId())).isEqualTo("18446744073709551615");
        assertThat(back.affectedRows()).isEqualTo(300);
        OkPacket minimal = Wire.read(hex("00000002000000"), in -> OkPacket.read(in, PLAIN));
        assertThat(minimal).isEqualTo(OkPacket.of(0, 0, 2, 0));
    }

    @Test
    void errorsWithAndWithoutSqlState() {
        byte[] payload = CapturedPackets.fromServer("err-no-such-table").get(0).payload();
        ErrPacket err = Wire.roundTrip(payload, ErrPacket::read, ErrPacket::write);
        assertThat(err).isEqualTo(new ErrPacket(1146, "42S02", "Table 'sgtest.nosuchtable' doesn't exist"));
        ErrPacket denied =
                Wire.roundTrip(CapturedPackets.first("err-access-denied").payload(), ErrPacket::read, ErrPacket::write);
        assertThat(denied).isEqualTo(ErrPacket.of(ErrorCode.ER_ACCESS_DENIED_ERROR, "sg", "localhost", "YES"));
        byte[] preHandshake = hex("ff1004" + "546f6f206d616e7920636f6e6e656374696f6e73");
        ErrPacket tooMany = Wire.roundTrip(preHandshake, ErrPacket::read, (p, out) -> p.write(out, Capabilities.NONE));
        assertThat(tooMany.code()).isEqualTo(1040);
        assertThat(tooMany.sqlState()).isEqualTo("HY000");
        assertThat(tooMany.message()).isEqualTo("Too many connections");
        Wire.truncationsFailTyped(payload, ErrPacket::read);
    }

    @Test
    void textResultSetFromMariaDbCliWithExtendedTypeInfo() {
        List<Captured> server = CapturedPackets.fromServer("text-resultset-mariadb-ext");
        ColumnCount count =
                Wire.roundTrip(server.get(0).payload(), in -> ColumnCount.read(in, CLI), (p, out) -> p.write(out, CLI));
        assertThat(count).isEqualTo(new ColumnCount(6, true));
        ColumnDefinition41[] defs = new ColumnDefinition41[6];
        for (int i = 0; i < 6; i++) {
            byte[] payload = server.get(1 + i).payload();
            defs[i] = Wire.roundTrip(payload, in -> ColumnDefinition41.read(in, CLI), (p, out) -> p.write(out, CLI));
            Wire.truncationsFailTyped(payload, in -> ColumnDefinition41.read(in, CLI));
        }
        assertThat(defs[0].name()).isEqualTo("id");
        assertThat(defs[0].type()).isEqualTo(MySqlType.LONG);
        assertThat(defs[0].flags() & ColumnFlags.PRI_KEY_FLAG).isNotZero();
        assertThat(defs[2].type()).isEqualTo(MySqlType.NEWDECIMAL);
        assertThat(defs[2].decimals()).isEqualTo(2);
        assertThat(defs[3].type()).isEqualTo(MySqlType.DATETIME);
        assertThat(defs[3].decimals()).isEqualTo(6);
        assertThat(defs[5].name()).isEqualTo("doc");
        assertThat(defs[5].type()).isEqualTo(MySqlType.BLOB);
        // format "json" (data type 0x01) in MariaDB's extended type info
        assertThat(new String(defs[5].mariaDbExtendedTypeInfo(), StandardCharsets.US_ASCII))
                .isEqualTo("\u0001\u0004json");
        EofPacket eof = Wire.roundTrip(server.get(7).payload(), EofPacket::read, EofPacket::write);
        assertThat(eof.statusFlags()).isEqualTo(0x22);
    }

    @Test
    void columnDefinitionWithoutExtendedInfoWhenNotNegotiated() {
        for (Captured c : CapturedPackets.fromServer("stmt-prepare-response").subList(1, 30)) {
            if (EofPacket.isEof(Unpooled.wrappedBuffer(c.payload()))) {
                Wire.roundTrip(c.payload(), EofPacket::read, EofPacket::write);
                continue;
            }
            ColumnDefinition41 def = Wire.roundTrip(
                    c.payload(), in -> ColumnDefinition41.read(in, PLAIN), (p, out) -> p.write(out, PLAIN));
            assertThat(def.mariaDbExtendedTypeInfo()).isNull();
        }
    }

    @Test
    void deprecateEofEndsRowsWithOkPacketHeaderFe() {
        Capabilities caps = PLAIN.with(CapabilityFlags.CLIENT_DEPRECATE_EOF);
        List<Captured> server = CapturedPackets.fromServer("deprecate-eof-text-resultset");
        byte[] last = server.get(server.size() - 1).payload();
        ByteBuf buf = Unpooled.wrappedBuffer(last);
        assertThat(EofPacket.isEof(buf))
                .as("an OK terminator is 7 bytes, still < 9")
                .isTrue();
        assertThat(OkPacket.isOk(buf)).isFalse();
        buf.release();
        OkPacket ok = Wire.roundTrip(last, in -> OkPacket.read(in, caps), (p, out) -> p.write(out, caps));
        assertThat(ok.header()).isEqualTo(OkPacket.EOF_HEADER);
        assertThat(ok.statusFlags()).isEqualTo(ServerStatus.SERVER_STATUS_AUTOCOMMIT);
    }

    @Test
    void columnCountWithOptionalMetadataFlag() {
        Capabilities caps = new Capabilities(CapabilityFlags.CLIENT_OPTIONAL_RESULTSET_METADATA);
        ColumnCount c =
                Wire.roundTrip(hex("fc0001 00"), in -> ColumnCount.read(in, caps), (p, out) -> p.write(out, caps));
        assertThat(c).isEqualTo(new ColumnCount(256, false));
        Wire.failsTyped(hex("00"), in -> ColumnCount.read(in, PLAIN));
        Wire.failsTyped(hex("fc01"), in -> ColumnCount.read(in, PLAIN));
    }

    @Test
    void prepareOkFromMariaDb() {
        List<Captured> server = CapturedPackets.fromServer("stmt-prepare-response");
        ComStmtPrepareOk ok = Wire.roundTrip(server.get(0).payload(), ComStmtPrepareOk::read, ComStmtPrepareOk::write);
        assertThat(ok.statementId()).isEqualTo(1);
        assertThat(ok.numColumns()).isEqualTo(26);
        assertThat(ok.numParams()).isEqualTo(1);
        assertThat(ok.warnings()).isZero();
        assertThat(server).hasSize(1 + 1 + 1 + 26 + 1);
        Wire.truncationsFailTyped(server.get(0).payload(), ComStmtPrepareOk::read);
    }

    @Test
    void authSwitchAndMoreData() {
        byte[] seed = hex("0102030405060708090a0b0c0d0e0f1011121314");
        AuthSwitchRequest sw = AuthSwitchRequest.withScramble("mysql_native_password", seed);
        byte[] bytes = Wire.write(sw, AuthSwitchRequest::write);
        assertThat(bytes)
                .isEqualTo(hex("fe" + "6d7973716c5f6e61746976655f70617373776f726400"
                        + "0102030405060708090a0b0c0d0e0f101112131400"));
        AuthSwitchRequest back = Wire.roundTrip(bytes, AuthSwitchRequest::read, AuthSwitchRequest::write);
        assertThat(back.scramble()).isEqualTo(seed);
        assertThat(back.pluginName()).isEqualTo("mysql_native_password");
        Wire.truncationsFailTyped(bytes, AuthSwitchRequest::read);
        AuthMoreData more = Wire.roundTrip(hex("0103"), AuthMoreData::read, AuthMoreData::write);
        assertThat(more.data()).containsExactly(3);
        Wire.failsTyped(hex(""), AuthMoreData::read);
        Wire.failsTyped(hex("0003"), AuthMoreData::read);
    }
}
