package io.shardgate.protocol.packet;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.auth.MySqlNativePassword;
import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.Wire;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HandshakeTest {
    private static final byte[] GREETING =
            CapturedPackets.first("handshake-v10").payload();
    private static final byte[] RESPONSE =
            CapturedPackets.first("handshake-response41").payload();

    @Test
    void readsMariaDbHandshakeAndWritesItBackExactly() {
        HandshakeV10 h = Wire.roundTrip(GREETING, HandshakeV10::read, HandshakeV10::write);
        assertThat(h.protocolVersion()).isEqualTo(10);
        assertThat(h.serverVersion()).isEqualTo("5.5.5-10.11.19-MariaDB-0+deb12u1");
        assertThat(h.authPluginData()).hasSize(20).doesNotContain((byte) 0);
        assertThat(h.authPluginName()).isEqualTo("mysql_native_password");
        assertThat(h.capabilities().has(CapabilityFlags.CLIENT_PROTOCOL_41)).isTrue();
        assertThat(h.capabilities().has(CapabilityFlags.CLIENT_PLUGIN_AUTH)).isTrue();
        // MariaDB signals its extensions by clearing CLIENT_LONG_PASSWORD ("CLIENT_MYSQL")
        assertThat(h.capabilities().has(CapabilityFlags.CLIENT_LONG_PASSWORD)).isFalse();
        assertThat(h.capabilities().hasMariaDb(CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO))
                .isTrue();
        // mariadbd --no-defaults keeps the compiled-in latin1 server character set
        assertThat(h.characterSet()).isEqualTo(Collations.LATIN1_SWEDISH_CI);
    }

    @Test
    void readsCliHandshakeResponseAndWritesItBackExactly() {
        HandshakeResponse41 r = Wire.roundTrip(RESPONSE, HandshakeResponse41::read, HandshakeResponse41::write);
        assertThat(r.username()).isEqualTo("sg");
        assertThat(r.database()).isEqualTo("sgtest");
        assertThat(r.authPluginName()).isEqualTo("mysql_native_password");
        assertThat(r.authResponse()).hasSize(20);
        assertThat(r.attributes()).containsKey("_client_name").containsEntry("program_name", "mysql");
        assertThat(r.capabilities().has(CapabilityFlags.CLIENT_CONNECT_ATTRS)).isTrue();
        assertThat(r.capabilities().hasMariaDb(CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO))
                .isTrue();
    }

    @Test
    void nativeScrambleOfSecretIsWhatTheRealClientSentAndMariaDbAccepted() {
        HandshakeV10 h = Wire.read(GREETING, HandshakeV10::read);
        HandshakeResponse41 r = Wire.read(RESPONSE, HandshakeResponse41::read);
        assertThat(MySqlNativePassword.scramble("secret", h.authPluginData())).isEqualTo(r.authResponse());
    }

    @Test
    void writesMySqlStyleHandshakeWithPart2PaddedTo13Bytes() {
        byte[] seed = hex("0102030405060708090a0b0c0d0e0f1011121314");
        int flags = CapabilityFlags.CLIENT_PROTOCOL_41
                | CapabilityFlags.CLIENT_SECURE_CONNECTION
                | CapabilityFlags.CLIENT_PLUGIN_AUTH
                | CapabilityFlags.CLIENT_LONG_PASSWORD;
        HandshakeV10 h =
                new HandshakeV10(10, "8.0.36", 7, seed, new Capabilities(flags), 255, 2, "caching_sha2_password");
        byte[] bytes = Wire.write(h, HandshakeV10::write);
        assertThat(bytes)
                .isEqualTo(hex("0a" + "382e302e333600" + "07000000" + "0102030405060708" + "00" + "0182" + "ff"
                        + "0200" + "0800" + "15" + "00000000000000000000" + "090a0b0c0d0e0f101112131400"
                        + "63616368696e675f736861325f70617373776f726400"));
        HandshakeV10 back = Wire.read(bytes, HandshakeV10::read);
        assertThat(back.authPluginData()).isEqualTo(seed);
        assertThat(back.connectionId()).isEqualTo(7);
        assertThat(back.statusFlags()).isEqualTo(2);
        assertThat(back.capabilities()).isEqualTo(new Capabilities(flags));
    }

    @Test
    void readsPre41HandshakeThatEndsAfterLowerCapabilities() {
        byte[] bytes = hex("0a" + "332e323300" + "01000000" + "4142434445464748" + "00" + "0000");
        HandshakeV10 h = Wire.read(bytes, HandshakeV10::read);
        assertThat(h.authPluginData()).isEqualTo("ABCDEFGH".getBytes());
        assertThat(h.authPluginName()).isNull();
    }

    @Test
    void truncatedHandshakesFailTyped() {
        Wire.truncationsFailTyped(GREETING, HandshakeV10::read);
        Wire.truncationsFailTyped(RESPONSE, HandshakeResponse41::read);
        Wire.failsTyped(hex("ff1004"), HandshakeV10::read);
    }

    @Test
    void writesResponseWithLengthEncodedAuthDataAndAttributes() {
        int flags = CapabilityFlags.CLIENT_PROTOCOL_41
                | CapabilityFlags.CLIENT_SECURE_CONNECTION
                | CapabilityFlags.CLIENT_PLUGIN_AUTH
                | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
                | CapabilityFlags.CLIENT_CONNECT_ATTRS;
        HandshakeResponse41 r = new HandshakeResponse41(
                new Capabilities(flags),
                1 << 24,
                45,
                "u",
                hex("aabb"),
                null,
                "mysql_native_password",
                Map.of("k", "v"));
        byte[] bytes = Wire.write(r, HandshakeResponse41::write);
        assertThat(bytes)
                .isEqualTo(hex("0082380000000001" + "2d" + "00".repeat(23) + "7500" + "02aabb"
                        + "6d7973716c5f6e61746976655f70617373776f726400" + "04016b0176"));
        HandshakeResponse41 back = Wire.read(bytes, HandshakeResponse41::read);
        assertThat(back.database()).isNull();
        assertThat(back.attributes()).containsExactly(Map.entry("k", "v"));
    }

    @Test
    void readsPre41StyleNulTerminatedAuthResponse() {
        byte[] bytes = hex("08020000" + "00000001" + "08" + "00".repeat(23) + "726f6f7400" + "78797a00" + "646200");
        HandshakeResponse41 r = Wire.roundTrip(bytes, HandshakeResponse41::read, HandshakeResponse41::write);
        assertThat(r.authResponse()).isEqualTo("xyz".getBytes());
        assertThat(r.database()).isEqualTo("db");
        assertThat(r.authPluginName()).isNull();
        assertThat(r.attributes()).isEmpty();
    }

    @Test
    void recognisesSslRequest() {
        byte[] ssl = hex("008a0000" + "00000001" + "2d" + "00".repeat(23));
        SslRequest s = Wire.roundTrip(ssl, SslRequest::read, SslRequest::write);
        assertThat(s.capabilities().has(CapabilityFlags.CLIENT_SSL)).isTrue();
        assertThat(s.maxPacketSize()).isEqualTo(1 << 24);
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(ssl);
        assertThat(SslRequest.isSslRequest(buf)).isTrue();
        buf.release();
        io.netty.buffer.ByteBuf full = io.netty.buffer.Unpooled.wrappedBuffer(RESPONSE);
        assertThat(SslRequest.isSslRequest(full)).isFalse();
        full.release();
        Wire.truncationsFailTyped(ssl, SslRequest::read);
    }
}
