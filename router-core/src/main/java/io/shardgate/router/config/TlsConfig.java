package io.shardgate.router.config;

import io.shardgate.router.tls.TlsSettings;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code server.tls} section as written in YAML: TLS offered to clients (CLIENT_SSL). It only
 * binds the file's keys; {@link #toSettings()} gives the loader's {@link TlsSettings}.
 *
 * @param enabled announce CLIENT_SSL; clients choose whether to use it
 * @param cert PEM certificate chain; with {@code key} null a self-signed pair is generated under
 *     the data directory at first start
 * @param key PEM private key
 * @param protocols TLS versions accepted (default TLSv1.2 and TLSv1.3)
 */
public record TlsConfig(Boolean enabled, String cert, String key, List<String> protocols) {
    public TlsConfig {
        enabled = enabled == null ? Boolean.TRUE : enabled;
    }

    static TlsConfig defaults() {
        return new TlsConfig(null, null, null, null);
    }

    /** The settings the TLS loader takes (relative paths resolve against the working directory). */
    public TlsSettings toSettings() {
        return new TlsSettings(
                enabled, cert == null ? null : Path.of(cert), key == null ? null : Path.of(key), protocols);
    }
}
