package io.shardgate.router.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server-side TLS context the frontend installs after a client's SSLRequest: the configured PEM
 * certificate and key, or else a self-signed pair generated once under {@code <dataDir>/tls/} and
 * reused on later starts, so certificate pinning by clients survives restarts.
 *
 * <p>Built once at startup and shared by every connection ({@code sslContext().newHandler(alloc)} per
 * client). Uses the JDK's TLS provider: netty-tcnative is not on the classpath, and the JDK context
 * holds no native memory, so nothing needs releasing.
 */
public final class FrontendTls {
    /** Generated certificate, relative to the data directory. */
    public static final String GENERATED_CERT = "tls/server-cert.pem";
    /** Generated private key, relative to the data directory. */
    public static final String GENERATED_KEY = "tls/server-key.pem";

    private static final Logger log = LoggerFactory.getLogger(FrontendTls.class);

    private final SslContext sslContext;
    private final CertifiedKey certifiedKey;
    private final boolean generated;

    private FrontendTls(SslContext sslContext, CertifiedKey certifiedKey, boolean generated) {
        this.sslContext = sslContext;
        this.certifiedKey = certifiedKey;
        this.generated = generated;
    }

    /**
     * Loads the configured certificate and key, or the generated pair under {@code dataDir} (creating it
     * at first start), and builds the TLS context. Does not look at {@link TlsSettings#enabled()}:
     * whoever announces CLIENT_SSL decides whether to call this.
     *
     * @throws KeyMaterialException naming the file and the reason when a file is missing, unreadable,
     *     not PEM, encrypted, or does not match its partner, or when a protocol is not supported
     */
    public static FrontendTls load(TlsSettings settings, Path dataDir) {
        checkProtocols(settings.protocols());
        boolean generated = settings.certFile() == null;
        CertifiedKey certifiedKey =
                generated ? loadOrGenerate(dataDir) : CertifiedKey.read(settings.certFile(), settings.keyFile());
        warnIfOutsideValidity(certifiedKey.leaf(), generated ? dataDir.resolve(GENERATED_CERT) : settings.certFile());
        try {
            SslContext context = SslContextBuilder.forServer(
                            certifiedKey.key(), certifiedKey.chain().toArray(new X509Certificate[0]))
                    .sslProvider(SslProvider.JDK)
                    .protocols(settings.protocols())
                    .build();
            return new FrontendTls(context, certifiedKey, generated);
        } catch (SSLException e) {
            throw new KeyMaterialException(
                    "cannot build the TLS context from the certificate "
                            + certifiedKey.leaf().getSubjectX500Principal() + ": " + e.getMessage(),
                    e);
        }
    }

    /** Server-mode context: {@code sslContext().newHandler(channel.alloc())} per upgraded client. */
    public SslContext sslContext() {
        return sslContext;
    }

    /** The certificate chain and key presented to clients. */
    public CertifiedKey certifiedKey() {
        return certifiedKey;
    }

    /** True when the certificate is the self-signed one under the data directory. */
    public boolean generated() {
        return generated;
    }

    /** SHA-256 of the leaf certificate's DER, colon-separated hex, as {@code openssl x509 -fingerprint} shows. */
    public String fingerprint() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(certifiedKey.leaf().getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    private static CertifiedKey loadOrGenerate(Path dataDir) {
        Path certFile = dataDir.resolve(GENERATED_CERT);
        Path keyFile = dataDir.resolve(GENERATED_KEY);
        if (PemFiles.pairExists(certFile, keyFile, "generated TLS certificate")) {
            return CertifiedKey.read(certFile, keyFile);
        }
        CertifiedKey created = SelfSignedCertificates.generate(Instant.now());
        // Key first: a crash in between leaves a key without a certificate, which pairExists reports.
        PemFiles.write(keyFile, PemFiles.encode("PRIVATE KEY", created.key().getEncoded()), true, "TLS private key");
        PemFiles.write(
                certFile, PemFiles.encode("CERTIFICATE", encoded(created.leaf(), certFile)), false, "TLS certificate");
        log.info(
                "Generated a self-signed TLS certificate for clients ({}, valid until {}): {} and {}",
                SelfSignedCertificates.COMMON_NAME,
                created.leaf().getNotAfter().toInstant(),
                certFile.toAbsolutePath(),
                keyFile.toAbsolutePath());
        return created;
    }

    private static byte[] encoded(X509Certificate certificate, Path file) {
        try {
            return certificate.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new KeyMaterialException(PemFiles.describe("TLS certificate", file) + ": cannot encode", e);
        }
    }

    // Netty passes unknown names to the JDK engine, which fails only at the first client's handshake.
    private static void checkProtocols(List<String> protocols) {
        List<String> supported;
        try {
            supported =
                    List.of(SSLContext.getDefault().getSupportedSSLParameters().getProtocols());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
        for (String protocol : protocols) {
            if (!supported.contains(protocol)) {
                throw new KeyMaterialException(
                        "TLS protocol '" + protocol + "' is not supported by this JDK; supported: " + supported);
            }
        }
    }

    // Clients reject an expired certificate with an opaque handshake error; say it once, in our log.
    private static void warnIfOutsideValidity(X509Certificate leaf, Path file) {
        try {
            leaf.checkValidity();
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            log.warn(
                    "TLS certificate {} is valid only from {} to {}; clients that verify it will refuse to connect",
                    file.toAbsolutePath(),
                    leaf.getNotBefore().toInstant(),
                    leaf.getNotAfter().toInstant());
        }
    }
}
