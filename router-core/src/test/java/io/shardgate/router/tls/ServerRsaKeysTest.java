package io.shardgate.router.tls;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import javax.crypto.Cipher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerRsaKeysTest {
    @TempDir
    Path dataDir;

    @Test
    void generatesRsa2048PairUnderDataDirAtFirstStart() throws Exception {
        ServerRsaKeys keys = ServerRsaKeys.loadOrGenerate(dataDir);

        assertThat(keys.publicKey()).isInstanceOf(RSAPublicKey.class);
        assertThat(((RSAPublicKey) keys.publicKey()).getModulus().bitLength()).isEqualTo(2048);
        assertThat(keys.privateKey().getAlgorithm()).isEqualTo("RSA");
        assertThat(keys.keyPair().getPublic()).isEqualTo(keys.publicKey());
        assertThat(keys.keyPair().getPrivate()).isEqualTo(keys.privateKey());
        Path privateFile = dataDir.resolve("rsa/private_key.pem");
        Path publicFile = dataDir.resolve("rsa/public_key.pem");
        assertThat(Files.readString(privateFile)).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(Files.readString(publicFile)).isEqualTo(keys.publicKeyPem());
        if (Files.getFileStore(privateFile).supportsFileAttributeView("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(privateFile)))
                    .isEqualTo("rw-------");
        }
    }

    @Test
    void reusesPersistedPairOnLaterStarts() throws Exception {
        ServerRsaKeys first = ServerRsaKeys.loadOrGenerate(dataDir);
        byte[] privateBytes = Files.readAllBytes(dataDir.resolve(ServerRsaKeys.PRIVATE_KEY_FILE));
        byte[] publicBytes = Files.readAllBytes(dataDir.resolve(ServerRsaKeys.PUBLIC_KEY_FILE));

        ServerRsaKeys second = ServerRsaKeys.loadOrGenerate(dataDir);

        assertThat(second.publicKey()).isEqualTo(first.publicKey());
        assertThat(second.privateKey()).isEqualTo(first.privateKey());
        assertThat(second.publicKeyPem()).isEqualTo(first.publicKeyPem());
        assertThat(Files.readAllBytes(dataDir.resolve(ServerRsaKeys.PRIVATE_KEY_FILE)))
                .isEqualTo(privateBytes);
        assertThat(Files.readAllBytes(dataDir.resolve(ServerRsaKeys.PUBLIC_KEY_FILE)))
                .isEqualTo(publicBytes);
    }

    @Test
    void publicKeyPemIsSubjectPublicKeyInfoIn64ColumnLines() {
        String pem = ServerRsaKeys.loadOrGenerate(dataDir).publicKeyPem();

        String[] lines = pem.split("\n", -1);
        assertThat(lines[0]).isEqualTo("-----BEGIN PUBLIC KEY-----");
        assertThat(lines[lines.length - 2]).isEqualTo("-----END PUBLIC KEY-----");
        assertThat(lines[lines.length - 1]).isEmpty(); // ends in '\n'
        assertThat(pem).doesNotContain("\r");
        for (int i = 1; i < lines.length - 3; i++) {
            assertThat(lines[i]).hasSize(64);
        }
    }

    @Test
    void passwordEncryptedWithPublicKeyFromPemDecryptsWithPrivateKey() throws Exception {
        ServerRsaKeys keys = ServerRsaKeys.loadOrGenerate(dataDir);
        // What a MySQL client does with the PEM it received: parse it with no help from our code.
        PublicKey clientSide = parseLikeAClient(keys.publicKeyPem());
        byte[] scrambledPassword = "s3cret\0 xor scramble".getBytes(UTF_8);

        Cipher encrypt = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
        encrypt.init(Cipher.ENCRYPT_MODE, clientSide);
        byte[] ciphertext = encrypt.doFinal(scrambledPassword);
        Cipher decrypt = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
        decrypt.init(Cipher.DECRYPT_MODE, ServerRsaKeys.loadOrGenerate(dataDir).privateKey());

        assertThat(ciphertext).hasSize(256);
        assertThat(decrypt.doFinal(ciphertext)).isEqualTo(scrambledPassword);
    }

    @Test
    void publicKeyNotMatchingPrivateKeyIsRefused() throws Exception {
        ServerRsaKeys.loadOrGenerate(dataDir);
        Path publicFile = dataDir.resolve(ServerRsaKeys.PUBLIC_KEY_FILE);
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        Files.writeString(
                publicFile,
                PemFiles.encode(
                        "PUBLIC KEY", generator.generateKeyPair().getPublic().getEncoded()));

        assertThatThrownBy(() -> ServerRsaKeys.loadOrGenerate(dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageContaining("RSA public key " + publicFile.toAbsolutePath())
                .hasMessageContaining("is not the public half of RSA private key "
                        + dataDir.resolve(ServerRsaKeys.PRIVATE_KEY_FILE).toAbsolutePath());
    }

    @Test
    void privateKeyWithoutPublicKeyIsNotSilentlyReplaced() throws Exception {
        ServerRsaKeys.loadOrGenerate(dataDir);
        Path publicFile = dataDir.resolve(ServerRsaKeys.PUBLIC_KEY_FILE);
        Files.delete(publicFile);

        assertThatThrownBy(() -> ServerRsaKeys.loadOrGenerate(dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageContaining("but not " + publicFile);
    }

    @Test
    void garbledPemNamesTheFile() throws Exception {
        ServerRsaKeys.loadOrGenerate(dataDir);
        Path privateFile = dataDir.resolve(ServerRsaKeys.PRIVATE_KEY_FILE);
        Files.writeString(privateFile, "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n");

        assertThatThrownBy(() -> ServerRsaKeys.loadOrGenerate(dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageStartingWith("RSA private key " + privateFile.toAbsolutePath() + ": malformed PEM");
    }

    private static PublicKey parseLikeAClient(String pem) throws Exception {
        String base64 = pem.replace("-----BEGIN PUBLIC KEY-----", "")
                .replace("-----END PUBLIC KEY-----", "")
                .replace("\n", "");
        return KeyFactory.getInstance("RSA")
                .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }
}
