package io.shardgate.router.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's RSA key pair for caching_sha2_password full authentication over connections without
 * TLS: the client asks for the public key, encrypts its password XOR the scramble with
 * RSA/ECB/OAEPWithSHA-1AndMGF1Padding, and the server decrypts it with the private key.
 *
 * <p>Kept in {@code <dataDir>/rsa/private_key.pem} and {@code public_key.pem} (MySQL's
 * caching_sha2_password_private_key_path and _public_key_path), generated at first start and reused,
 * so clients that pinned the public key ({@code --server-public-key-path}) keep working. Immutable.
 */
public final class ServerRsaKeys {
    /** Private key, relative to the data directory; PKCS#8 when generated, PKCS#1 also read. */
    public static final String PRIVATE_KEY_FILE = "rsa/private_key.pem";
    /** Public key, relative to the data directory; X.509 SubjectPublicKeyInfo. */
    public static final String PUBLIC_KEY_FILE = "rsa/public_key.pem";

    private static final Logger log = LoggerFactory.getLogger(ServerRsaKeys.class);

    private final PublicKey publicKey;
    private final PrivateKey privateKey;
    private final String publicKeyPem;

    private ServerRsaKeys(PublicKey publicKey, PrivateKey privateKey) {
        this.publicKey = publicKey;
        this.privateKey = privateKey;
        this.publicKeyPem = PemFiles.encode("PUBLIC KEY", publicKey.getEncoded());
    }

    /**
     * Reads the pair under {@code dataDir}, or generates an RSA 2048 pair and writes it there (private
     * key 0600) when neither file exists.
     *
     * @throws KeyMaterialException naming the file and the reason when only one file exists, a file is
     *     unreadable or not an RSA key in PEM, or the two keys do not belong together
     */
    public static ServerRsaKeys loadOrGenerate(Path dataDir) {
        Path privateFile = dataDir.resolve(PRIVATE_KEY_FILE);
        Path publicFile = dataDir.resolve(PUBLIC_KEY_FILE);
        if (PemFiles.pairExists(privateFile, publicFile, "RSA key pair for caching_sha2_password")) {
            return read(privateFile, publicFile);
        }
        KeyPair pair = generate();
        ServerRsaKeys keys = new ServerRsaKeys(pair.getPublic(), pair.getPrivate());
        // Private first: a crash in between leaves a private key alone, which pairExists reports.
        PemFiles.write(
                privateFile, PemFiles.encode("PRIVATE KEY", pair.getPrivate().getEncoded()), true, "RSA private key");
        PemFiles.write(publicFile, keys.publicKeyPem, false, "RSA public key");
        log.info(
                "Generated the RSA key pair for caching_sha2_password: {} and {}",
                privateFile.toAbsolutePath(),
                publicFile.toAbsolutePath());
        return keys;
    }

    /** The key clients encrypt their password with. */
    public PublicKey publicKey() {
        return publicKey;
    }

    /** The key that decrypts what clients sent. */
    public PrivateKey privateKey() {
        return privateKey;
    }

    /** Both keys, as the frontend's caching_sha2_password authentication takes them. */
    public KeyPair keyPair() {
        return new KeyPair(publicKey, privateKey);
    }

    /**
     * The public key as sent in reply to a client's public key request: "-----BEGIN PUBLIC KEY-----",
     * Base64 of the X.509 SubjectPublicKeyInfo in 64-column lines, "-----END PUBLIC KEY-----", each
     * line ending in '\n', US-ASCII.
     */
    public String publicKeyPem() {
        return publicKeyPem;
    }

    private static ServerRsaKeys read(Path privateFile, Path publicFile) {
        PrivateKey privateKey = PemFiles.readPrivateKey(privateFile, "RSA private key");
        PublicKey publicKey = PemFiles.readPublicKey(publicFile, "RSA public key");
        if (!privateKey.getAlgorithm().equals("RSA")) {
            throw new KeyMaterialException(PemFiles.describe("RSA private key", privateFile) + ": holds a "
                    + privateKey.getAlgorithm() + " key; caching_sha2_password needs RSA");
        }
        if (!CertifiedKey.matches(publicKey, privateKey)) {
            throw new KeyMaterialException(PemFiles.describe("RSA public key", publicFile)
                    + " is not the public half of " + PemFiles.describe("RSA private key", privateFile)
                    + "; delete both files to generate a new pair");
        }
        return new ServerRsaKeys(publicKey, privateKey);
    }

    private static KeyPair generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, new SecureRandom());
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot generate RSA keys", e);
        }
    }
}
