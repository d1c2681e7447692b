package io.shardgate.router.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FrontendTlsTest {
    @TempDir
    Path dataDir;

    @Test
    void generatesSelfSignedCertificateUnderDataDirAtFirstStart() throws Exception {
        FrontendTls tls = FrontendTls.load(TlsSettings.defaults(), dataDir);

        assertThat(tls.generated()).isTrue();
        X509Certificate leaf = tls.certifiedKey().leaf();
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=Shardgate auto-generated");
        assertThat(leaf.getIssuerX500Principal()).isEqualTo(leaf.getSubjectX500Principal());
        leaf.verify(leaf.getPublicKey());
        assertThat(leaf.getPublicKey().getAlgorithm()).isEqualTo("RSA");
        assertThat(((RSAPublicKey) leaf.getPublicKey()).getModulus().bitLength())
                .isEqualTo(2048);
        assertThat(Duration.between(
                        leaf.getNotBefore().toInstant(), leaf.getNotAfter().toInstant()))
                .isGreaterThanOrEqualTo(Duration.ofDays(3650));
        Collection<List<?>> altNames = leaf.getSubjectAlternativeNames();
        assertThat(altNames).containsExactlyInAnyOrder(List.of(2, "localhost"), List.of(7, "127.0.0.1"));

        Path certFile = dataDir.resolve("tls/server-cert.pem");
        Path keyFile = dataDir.resolve("tls/server-key.pem");
        assertThat(Files.readString(certFile)).startsWith("-----BEGIN CERTIFICATE-----\n");
        assertThat(Files.readString(keyFile)).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(CertifiedKey.read(certFile, keyFile).leaf()).isEqualTo(leaf);
        if (Files.getFileStore(keyFile).supportsFileAttributeView("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
                    .isEqualTo("rw-------");
        }
        assertThat(dataDir.resolve("tls")).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void reusesGeneratedCertificateOnLaterStarts() throws Exception {
        FrontendTls first = FrontendTls.load(TlsSettings.defaults(), dataDir);
        byte[] certBytes = Files.readAllBytes(dataDir.resolve(FrontendTls.GENERATED_CERT));
        byte[] keyBytes = Files.readAllBytes(dataDir.resolve(FrontendTls.GENERATED_KEY));

        FrontendTls second = FrontendTls.load(TlsSettings.defaults(), dataDir);

        assertThat(Files.readAllBytes(dataDir.resolve(FrontendTls.GENERATED_CERT)))
                .isEqualTo(certBytes);
        assertThat(Files.readAllBytes(dataDir.resolve(FrontendTls.GENERATED_KEY)))
                .isEqualTo(keyBytes);
        assertThat(second.certifiedKey().leaf()).isEqualTo(first.certifiedKey().leaf());
        assertThat(second.certifiedKey().key()).isEqualTo(first.certifiedKey().key());
        assertThat(second.fingerprint()).isEqualTo(first.fingerprint()).hasSize(32 * 3 - 1);
    }

    @Test
    void clientTrustingGeneratedCertificateCompletesHandshakeAndExchangesBytes() throws Exception {
        FrontendTls tls = FrontendTls.load(TlsSettings.defaults(), dataDir);
        // The client trusts exactly the persisted certificate and verifies the host name against its SAN.
        X509Certificate persisted = PemFiles.readCertificates(dataDir.resolve(FrontendTls.GENERATED_CERT), "test")
                .get(0);
        SslContext client = clientTrusting(persisted);

        try (TlsEchoServer server = new TlsEchoServer(tls.sslContext())) {
            TlsEchoServer.Exchange byName = server.exchange(client, "localhost", "SELECT 1");
            TlsEchoServer.Exchange byAddress = server.exchange(client, "127.0.0.1", "x".repeat(100_000));

            assertThat(byName.echoed()).isEqualTo("SELECT 1");
            assertThat(byName.protocol()).isEqualTo("TLSv1.3");
            assertThat(byName.peerCertificate()).isEqualTo(persisted);
            assertThat(byAddress.echoed()).isEqualTo("x".repeat(100_000));
        }
    }

    @Test
    void servesConfiguredPemFilesInsteadOfGenerating() throws Exception {
        // An EC key in SEC1 form ("EC PRIVATE KEY"), as openssl ecparam -genkey writes it.
        KeyPair pair = ecKeyPair();
        CertifiedKey issued = SelfSignedCertificates.create("configured.test", pair, Instant.now(), Duration.ofDays(1));
        Path certFile = writePem(dataDir.resolve("conf/cert.pem"), issued.leaf());
        Path keyFile = Files.writeString(dataDir.resolve("conf/key.pem"), sec1(pair));
        TlsSettings settings = new TlsSettings(true, certFile, keyFile, List.of("TLSv1.2"));

        FrontendTls tls = FrontendTls.load(settings, dataDir);

        assertThat(tls.generated()).isFalse();
        assertThat(tls.certifiedKey().leaf()).isEqualTo(issued.leaf());
        assertThat(dataDir.resolve("tls")).doesNotExist();
        try (TlsEchoServer server = new TlsEchoServer(tls.sslContext())) {
            TlsEchoServer.Exchange exchange = server.exchange(clientTrusting(issued.leaf()), "localhost", "ping");

            assertThat(exchange.echoed()).isEqualTo("ping");
            assertThat(exchange.peerCertificate()).isEqualTo(issued.leaf());
            assertThat(exchange.protocol()).isEqualTo("TLSv1.2");
        }
    }

    @Test
    void readsRsaKeyInPkcs1Form() throws Exception {
        KeyPair pair = rsaKeyPair();
        CertifiedKey issued = SelfSignedCertificates.create("pkcs1.test", pair, Instant.now(), Duration.ofDays(1));
        Path certFile = writePem(dataDir.resolve("cert.pem"), issued.leaf());
        Path keyFile = writePem(dataDir.resolve("key.pem"), pair);
        assertThat(Files.readString(keyFile)).startsWith("-----BEGIN RSA PRIVATE KEY-----");

        CertifiedKey read = CertifiedKey.read(certFile, keyFile);

        assertThat(read.key()).isEqualTo(pair.getPrivate());
    }

    @Test
    void mismatchedCertificateAndKeyNameBothFiles() throws Exception {
        CertifiedKey issued =
                SelfSignedCertificates.create("one.test", rsaKeyPair(), Instant.now(), Duration.ofDays(1));
        Path certFile = writePem(dataDir.resolve("cert.pem"), issued.leaf());
        Path keyFile = writePem(dataDir.resolve("other-key.pem"), rsaKeyPair());

        assertThatThrownBy(() -> FrontendTls.load(new TlsSettings(true, certFile, keyFile, null), dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageContaining("TLS certificate " + certFile.toAbsolutePath())
                .hasMessageContaining("does not match TLS private key " + keyFile.toAbsolutePath());
    }

    @Test
    void missingConfiguredFileIsNamed() throws Exception {
        CertifiedKey issued =
                SelfSignedCertificates.create("one.test", rsaKeyPair(), Instant.now(), Duration.ofDays(1));
        Path certFile = writePem(dataDir.resolve("cert.pem"), issued.leaf());
        Path keyFile = dataDir.resolve("absent-key.pem");

        assertThatThrownBy(() -> FrontendTls.load(new TlsSettings(true, certFile, keyFile, null), dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessage("TLS private key " + keyFile.toAbsolutePath() + ": no such file");
    }

    @Test
    void swappedFilesSayWhatWasFound() throws Exception {
        KeyPair pair = rsaKeyPair();
        CertifiedKey issued = SelfSignedCertificates.create("one.test", pair, Instant.now(), Duration.ofDays(1));
        Path certFile = writePem(dataDir.resolve("cert.pem"), issued.leaf());
        Path keyFile = writePem(dataDir.resolve("key.pem"), pair);

        assertThatThrownBy(() -> CertifiedKey.read(keyFile, certFile))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessage("TLS certificate " + keyFile.toAbsolutePath()
                        + ": no '-----BEGIN CERTIFICATE-----' block (found a PRIVATE KEY)");
    }

    @Test
    void derOrEmptyFileIsNotPem() throws Exception {
        CertifiedKey issued =
                SelfSignedCertificates.create("one.test", rsaKeyPair(), Instant.now(), Duration.ofDays(1));
        Path der = Files.write(dataDir.resolve("cert.der"), issued.leaf().getEncoded());

        assertThatThrownBy(() -> PemFiles.readCertificates(der, "TLS certificate"))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageStartingWith("TLS certificate " + der.toAbsolutePath() + ": no '-----BEGIN CERTIFICATE")
                .hasMessageContaining("holds no PEM block");
    }

    @Test
    void encryptedKeysAreRefusedWithHowToDecrypt() throws Exception {
        // A provider instance used only here; registering BouncyCastle would change the whole JVM.
        Provider bc = new BouncyCastleProvider();
        char[] password = "secret".toCharArray();
        Path pkcs8 = writePem(
                dataDir.resolve("pkcs8.pem"),
                new JcaPKCS8Generator(
                        rsaKeyPair().getPrivate(),
                        new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                                .setProvider(bc)
                                .setPassword(password)
                                .build()));
        // OpenSSL's legacy form: "Proc-Type: 4,ENCRYPTED" headers on an RSA PRIVATE KEY block.
        Path legacy = dataDir.resolve("legacy.pem");
        try (Writer out = Files.newBufferedWriter(legacy);
                JcaPEMWriter pem = new JcaPEMWriter(out)) {
            pem.writeObject(
                    rsaKeyPair().getPrivate(),
                    new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(bc).build(password));
        }
        assertThat(Files.readString(pkcs8)).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        assertThat(Files.readString(legacy)).contains("Proc-Type: 4,ENCRYPTED");

        for (Path keyFile : List.of(pkcs8, legacy)) {
            assertThatThrownBy(() -> PemFiles.readPrivateKey(keyFile, "TLS private key"))
                    .isInstanceOf(KeyMaterialException.class)
                    .hasMessageStartingWith(
                            "TLS private key " + keyFile.toAbsolutePath() + ": the key is encrypted with a passphrase")
                    .hasMessageContaining("openssl pkey");
        }
    }

    @Test
    void generatedCertificateWithoutItsKeyIsNotSilentlyReplaced() throws Exception {
        FrontendTls.load(TlsSettings.defaults(), dataDir);
        Path keyFile = dataDir.resolve(FrontendTls.GENERATED_KEY);
        Files.delete(keyFile);

        assertThatThrownBy(() -> FrontendTls.load(TlsSettings.defaults(), dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageContaining("but not " + keyFile)
                .hasMessageContaining("delete " + dataDir.resolve(FrontendTls.GENERATED_CERT));
    }

    @Test
    void unsupportedProtocolIsRefusedAtStartup() {
        TlsSettings settings = new TlsSettings(true, null, null, List.of("TLSv1.3", "TLSv9"));

        assertThatThrownBy(() -> FrontendTls.load(settings, dataDir))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageStartingWith("TLS protocol 'TLSv9' is not supported by this JDK");
    }

    private static SslContext clientTrusting(X509Certificate certificate) throws IOException {
        return SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .trustManager(certificate)
                .endpointIdentificationAlgorithm("HTTPS")
                .build();
    }

    private static KeyPair ecKeyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    /**
     * An EC key as {@code openssl ecparam -genkey} writes it: SEC1 "EC PRIVATE KEY" carrying the curve
     * and the public point (the JDK's PKCS#8 encoding leaves both out of the inner structure).
     */
    private static String sec1(KeyPair pair) throws IOException {
        PrivateKeyInfo pkcs8 = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded());
        ECPrivateKey inner = ECPrivateKey.getInstance(pkcs8.parsePrivateKey());
        ECPrivateKey sec1 = new ECPrivateKey(
                256,
                inner.getKey(),
                SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded()).getPublicKeyData(),
                pkcs8.getPrivateKeyAlgorithm().getParameters());
        return PemFiles.encode("EC PRIVATE KEY", sec1.getEncoded());
    }

    private static KeyPair rsaKeyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    /** Writes with BouncyCastle's writer, which emits the legacy PKCS#1/SEC1 forms OpenSSL tools use. */
    private static Path writePem(Path file, Object object) throws IOException {
        Files.createDirectories(file.getParent());
        try (Writer out = Files.newBufferedWriter(file);
                JcaPEMWriter pem = new JcaPEMWriter(out)) {
            pem.writeObject(object);
        }
        return file;
    }
}
