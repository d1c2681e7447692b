package io.shardgate.router.tls;

import java.nio.file.Path;
import java.util.List;

/**
 * TLS offered to MySQL clients after they send an SSLRequest: whether CLIENT_SSL is announced, the
 * certificate and key to present, and the protocol versions accepted.
 *
 * @param enabled announce CLIENT_SSL; each client still chooses whether to upgrade
 * @param certFile PEM certificate chain, leaf first; null (with {@code keyFile} null) generates a
 *     self-signed pair under the data directory at first start
 * @param keyFile PEM private key for the leaf certificate (PKCS#8, PKCS#1 or SEC1, unencrypted)
 * @param protocols accepted protocol versions; null means {@link #DEFAULT_PROTOCOLS}
 */
public record TlsSettings(boolean enabled, Path certFile, Path keyFile, List<String> protocols) {

    /** TLS 1.0 and 1.1 are disabled by the JDK since 8u291 and by MySQL since 8.0.28. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");

    public TlsSettings {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("TLS: set both the certificate and the key file, or neither"
                    + " (neither generates a self-signed pair); got certFile=" + certFile + ", keyFile=" + keyFile);
        }
        protocols = protocols == null ? DEFAULT_PROTOCOLS : List.copyOf(protocols);
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("TLS: protocols must name at least one version, e.g. TLSv1.3");
        }
    }

    /** TLS offered with a generated self-signed certificate and the default protocols. */
    public static TlsSettings defaults() {
        return new TlsSettings(true, null, null, null);
    }
}
