package io.shardgate.router.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;

/**
 * The client-side TLS contexts for backend connections, one per distinct {@link
 * BackendTlsSettings}, built at the first connection that needs it (its PEM files read then) and
 * shared by every later one. A context that cannot be built is not cached: fixing the file fixes
 * the next connection without a restart.
 *
 * <p>Thread-safe. Uses the JDK's provider, like {@link FrontendTls}.
 */
public final class BackendTlsContexts {
    private final Map<BackendTlsSettings, SslContext> contexts = new ConcurrentHashMap<>();

    /**
     * The context for {@code settings} (which must be enabled).
     *
     * @throws KeyMaterialException naming the file and the reason when a PEM file cannot be used
     */
    public SslContext context(BackendTlsSettings settings) {
        return contexts.computeIfAbsent(settings, BackendTlsContexts::build);
    }

    private static SslContext build(BackendTlsSettings settings) {
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .protocols(TlsSettings.DEFAULT_PROTOCOLS)
                // Netty 4.2 client contexts check the host name by default; only verify_identity asks
                // for it (verify_ca accepts a certificate for any name its CA signed, as MySQL's does)
                .endpointIdentificationAlgorithm(settings.mode() == BackendTlsMode.VERIFY_IDENTITY ? "HTTPS" : null);
        if (!settings.mode().verifiesCertificate()) {
            // required/preferred: encryption without authentication, as MySQL clients' --ssl-mode=REQUIRED
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
        } else if (settings.caFile() != null) {
            List<X509Certificate> cas = PemFiles.readCertificates(settings.caFile(), "backend TLS CA");
            builder.trustManager(cas.toArray(new X509Certificate[0]));
        }
        if (settings.certFile() != null) {
            CertifiedKey client = CertifiedKey.read(settings.certFile(), settings.keyFile());
            builder.keyManager(client.key(), client.chain().toArray(new X509Certificate[0]));
        }
        try {
            return builder.build();
        } catch (SSLException e) {
            throw new KeyMaterialException(
                    "cannot build the backend TLS context (" + settings.describe() + "): " + e.getMessage(), e);
        }
    }
}
