package io.shardgate.router.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS from the router to one hostgroup's servers: the mode, the CA that signs the servers'
 * certificates, and an optional client certificate for servers whose accounts are created
 * {@code REQUIRE X509}. Equal settings share one TLS context ({@link BackendTlsContexts}).
 *
 * @param mode when TLS is used and what is verified
 * @param caFile PEM CA certificate(s) the server's certificate must chain to; null: the JDK's
 *     default trust store (verify modes only)
 * @param certFile PEM client certificate chain presented to the server, or null
 * @param keyFile PEM private key of {@code certFile}, or null
 */
public record BackendTlsSettings(BackendTlsMode mode, Path caFile, Path certFile, Path keyFile) {
    public BackendTlsSettings {
        Objects.requireNonNull(mode);
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("backend TLS: set both the client certificate and key, or neither");
        }
    }

    /** No TLS to the backend. */
    public static final BackendTlsSettings DISABLED = new BackendTlsSettings(BackendTlsMode.DISABLED, null, null, null);

    /** Whether the router asks for TLS at all. */
    public boolean enabled() {
        return mode != BackendTlsMode.DISABLED;
    }

    /** For log lines and errors: the mode and, when verifying, the CA. */
    public String describe() {
        return "tls.mode " + mode.yamlName()
                + (mode.verifiesCertificate() ? ", ca " + (caFile == null ? "the JDK's trust store" : caFile) : "");
    }
}
