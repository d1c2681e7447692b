package io.shardgate.router.tls;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * How the router secures its connections to a backend, named after MySQL clients' {@code
 * --ssl-mode} (Connector/J's {@code sslMode}).
 */
public enum BackendTlsMode {
    /** Never TLS. */
    DISABLED,
    /** TLS when the server offers CLIENT_SSL, plaintext otherwise; the certificate is not checked. */
    PREFERRED,
    /** TLS or no connection; the certificate is not checked (encryption against passive listeners only). */
    REQUIRED,
    /** TLS, and the server's certificate must chain to the configured CA (or the JDK's trust store). */
    VERIFY_CA,
    /** As {@link #VERIFY_CA}, and the certificate must name the host the router connects to. */
    VERIFY_IDENTITY;

    /** The YAML spelling: {@code disabled}, {@code verify_ca}, ... */
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode of a YAML value, case-insensitive. */
    public static Optional<BackendTlsMode> parse(String text) {
        return Arrays.stream(values())
                .filter(mode -> mode.yamlName().equalsIgnoreCase(text.trim()))
                .findFirst();
    }

    /** True when the connection fails rather than continue without TLS. */
    public boolean mandatory() {
        return this != DISABLED && this != PREFERRED;
    }

    /** True when the server's certificate is checked against a CA. */
    public boolean verifiesCertificate() {
        return this == VERIFY_CA || this == VERIFY_IDENTITY;
    }
}
