package io.shardgate.router.config;

/**
 * The {@code server.tls} section: TLS offered to clients (CLIENT_SSL).
 *
 * @param enabled announce CLIENT_SSL; clients choose whether to use it
 * @param cert PEM certificate chain; with {@code key} null a self-signed pair is generated under
 *     the data directory at first start
 * @param key PEM private key
 */
public record TlsConfig(Boolean enabled, String cert, String key) {
    public TlsConfig {
        enabled = enabled == null ? Boolean.TRUE : enabled;
    }

    static TlsConfig defaults() {
        return new TlsConfig(null, null, null);
    }
}
