package io.shardgate.protocol.auth;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class CachingSha2PasswordTest {
    private static final byte[] SEED = hex("0102030405060708090a0b0c0d0e0f1011121314");
    private final CachingSha2Password plugin = new CachingSha2Password();

    @Test
    void fastScrambleKnownAnswers() {
        // computed independently with Python hashlib from MySQL's generate_sha2_scramble:
        // XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) + seed))
        assertThat(HexFormat.of().formatHex(CachingSha2Password.scramble("secret", SEED)))
                .isEqualTo("746ebe205d56a0707acb3e796e834e0dd7b1d61743b26bd5202c7a623230c7c9");
        assertThat(HexFormat.of().formatHex(CachingSha2Password.scramble("p\u00e4ss w\u00f6rd", SEED)))
                .isEqualTo("a9f4bf6498ae1566e100e47d00090eba68bcb0169f6dfac330ead8aff39f6949");
        assertThat(HexFormat.of().withUpperCase().formatHex(CachingSha2Password.stageTwoHash("secret")))
                .isEqualTo("3881219D087DD9C634373FD33DFA33A2CB6BFC6C520B64B8BB60EF2CEB534AE7");
        assertThat(plugin.initialResponse("", SEED)).isEmpty();
    }

    @Test
    void serverFastVerificationFromStoredHash() {
        StoredCredential stored =
                StoredCredential.parse("sha2:3881219D087DD9C634373FD33DFA33A2CB6BFC6C520B64B8BB60EF2CEB534AE7");
        assertThat(plugin.verify(stored, SEED, CachingSha2Password.scramble("secret", SEED)))
                .isTrue();
        assertThat(plugin.verify(stored, SEED, CachingSha2Password.scramble("secreT", SEED)))
                .isFalse();
        assertThat(plugin.verify(stored, hex("00".repeat(20)), CachingSha2Password.scramble("secret", SEED)))
                .isFalse();
        assertThat(plugin.verify(
                        StoredCredential.fromNativeHash("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"),
                        SEED,
                        CachingSha2Password.scramble("secret", SEED)))
                .as("no sha2 hash: the server must fall back to full authentication")
                .isFalse();
        assertThat(plugin.verify(StoredCredential.NO_PASSWORD, SEED, new byte[0]))
                .isTrue();
    }

    @Test
    void clientFollowsFastAuthSuccessAndFullAuthentication() {
        assertThat(plugin.onMoreData("secret", SEED, new byte[] {CachingSha2Password.FAST_AUTH_SUCCESS}, false))
                .isNull();
        assertThat(plugin.onMoreData(
                        "secret", SEED, new byte[] {CachingSha2Password.PERFORM_FULL_AUTHENTICATION}, true))
                .isEqualTo("secret\0".getBytes(StandardCharsets.UTF_8));
        assertThat(plugin.onMoreData(
                        "secret", SEED, new byte[] {CachingSha2Password.PERFORM_FULL_AUTHENTICATION}, false))
                .containsExactly(CachingSha2Password.REQUEST_PUBLIC_KEY);
        assertThatThrownBy(() -> plugin.onMoreData("secret", SEED, hex("7f"), false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rsaFullAuthenticationBothSides() throws GeneralSecurityException {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(2048);
        KeyPair keys = gen.generateKeyPair();
        String pem = CachingSha2Password.toPem(keys.getPublic());
        assertThat(pem).startsWith("-----BEGIN PUBLIC KEY-----\n").endsWith("-----END PUBLIC KEY-----\n");
        byte[] encrypted = plugin.onMoreData(
                "a longer password than the seed is", SEED, pem.getBytes(StandardCharsets.US_ASCII), false);
        assertThat(encrypted).hasSize(256);
        byte[] password = CachingSha2Password.decryptPassword(encrypted, SEED, keys.getPrivate());
        assertThat(new String(password, StandardCharsets.UTF_8)).isEqualTo("a longer password than the seed is");
        assertThat(plugin.verifyPassword(StoredCredential.fromPassword("a longer password than the seed is"), password))
                .isTrue();
        assertThat(plugin.verifyPassword(StoredCredential.fromPassword("other"), password))
                .isFalse();
        assertThatThrownBy(() -> CachingSha2Password.decryptPassword(
                        encrypted, SEED, gen.generateKeyPair().getPrivate()))
                .isInstanceOf(GeneralSecurityException.class);
    }

    @Test
    void decryptionReversesTheSeedXorIndependently() throws GeneralSecurityException {
        // the client side XORs (password + NUL) with the seed repeated before RSA; check the bytes directly
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(2048);
        KeyPair keys = gen.generateKeyPair();
        byte[] encrypted = CachingSha2Password.encryptPassword("ab", SEED, keys.getPublic());
        javax.crypto.Cipher cipher = javax.crypto.Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
        cipher.init(javax.crypto.Cipher.DECRYPT_MODE, keys.getPrivate());
        assertThat(cipher.doFinal(encrypted)).containsExactly('a' ^ 0x01, 'b' ^ 0x02, 0x03);
    }

    @Test
    void plaintextFullAuthentication() {
        byte[] response = CachingSha2Password.plaintextPassword("pw");
        assertThat(response).containsExactly('p', 'w', 0);
        assertThat(plugin.verifyPassword(
                        StoredCredential.fromPassword("pw"), CachingSha2Password.passwordFromPlaintext(response)))
                .isTrue();
    }

    @Test
    void parsesPemWithTrailingNul() throws GeneralSecurityException {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(1024);
        KeyPair keys = gen.generateKeyPair();
        String pem = CachingSha2Password.toPem(keys.getPublic()) + "\0";
        assertThat(CachingSha2Password.parsePublicKey(pem)).isEqualTo(keys.getPublic());
        assertThatThrownBy(() -> CachingSha2Password.parsePublicKey("-----BEGIN PUBLIC KEY-----\n!!\n"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
