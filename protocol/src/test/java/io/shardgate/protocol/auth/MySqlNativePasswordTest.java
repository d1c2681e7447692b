package io.shardgate.protocol.auth;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.fixture.CapturedPackets;
import io.shardgate.protocol.fixture.Wire;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class MySqlNativePasswordTest {
    private static final byte[] SEED = hex("0102030405060708090a0b0c0d0e0f1011121314");
    private final MySqlNativePassword plugin = new MySqlNativePassword();

    @Test
    void stageTwoHashesMatchMariaDbPasswordFunction() {
        // SELECT PASSWORD('secret'), PASSWORD('pässword'), PASSWORD('p ä s s') on MariaDB 10.11 (utf8mb4)
        assertThat(StoredCredential.fromPassword("secret").render())
                .startsWith("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7 ");
        assertThat(hexOf(MySqlNativePassword.stageTwoHash("pässword")))
                .isEqualTo("809D64D632EB9BAB610456B482D94C2E267965C8");
        assertThat(hexOf(MySqlNativePassword.stageTwoHash("p ä s s")))
                .isEqualTo("98E88EA2B712F2EC6131AF2F75CDC1F24AF7CB3A");
    }

    @Test
    void scrambleKnownAnswer() {
        // computed independently with Python hashlib: SHA1(pw) XOR SHA1(seed + SHA1(SHA1(pw)))
        assertThat(hexOf(MySqlNativePassword.scramble("secret", SEED)))
                .isEqualToIgnoringCase("b32bb3a583e1340c0a1108d58b1be49781ad8c2f");
        assertThat(plugin.initialResponse("", SEED)).isEmpty();
    }

    @Test
    void serverVerifiesTheResponseMariaDbAcceptedFromTheStoredHashOnly() {
        byte[] seed = Wire.read(CapturedPackets.first("handshake-v10").payload(), HandshakeV10::read)
                .authPluginData();
        byte[] response = Wire.read(
                        CapturedPackets.first("handshake-response41").payload(), HandshakeResponse41::read)
                .authResponse();
        StoredCredential stored = StoredCredential.fromNativeHash("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7");
        assertThat(plugin.verify(stored, seed, response)).isTrue();
        assertThat(plugin.verify(StoredCredential.fromPassword("Secret"), seed, response))
                .isFalse();
        assertThat(plugin.verify(stored, SEED, response)).as("other seed").isFalse();
        assertThat(plugin.verify(stored, seed, new byte[0])).isFalse();
        assertThat(plugin.verify(stored, seed, hex("00"))).isFalse();
    }

    @Test
    void emptyPasswordVerifiesOnlyAnEmptyResponse() {
        assertThat(plugin.verify(StoredCredential.NO_PASSWORD, SEED, new byte[0]))
                .isTrue();
        assertThat(plugin.verify(StoredCredential.NO_PASSWORD, SEED, MySqlNativePassword.scramble("x", SEED)))
                .isFalse();
        assertThat(plugin.verify(StoredCredential.fromPassword("x"), SEED, new byte[0]))
                .isFalse();
    }

    @Test
    void credentialWithoutNativeHashCannotVerify() {
        StoredCredential sha2Only =
                StoredCredential.parse("sha2:" + "3881219D087DD9C634373FD33DFA33A2CB6BFC6C520B64B8BB60EF2CEB534AE7");
        assertThat(plugin.verify(sha2Only, SEED, MySqlNativePassword.scramble("secret", SEED)))
                .isFalse();
        assertThat(plugin.onMoreData("secret", SEED, hex("03"), false)).isNull();
    }

    static String hexOf(byte[] b) {
        return HexFormat.of().withUpperCase().formatHex(b);
    }
}
