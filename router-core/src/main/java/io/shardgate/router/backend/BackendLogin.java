package io.shardgate.router.backend;

import io.shardgate.router.tls.BackendTlsSettings;

/**
 * What the router sends when it logs in to a backend server.
 *
 * @param user backend account
 * @param password its password (the auth plugins need it to answer the server's challenge)
 * @param schema schema to select at login, or null
 * @param characterSet collation id announced in the handshake response, usually the client's
 * @param capabilities capability flags the router asks for; intersected with the server's
 * @param mariaDbCapabilities MariaDB extended capabilities asked for (used when the server is
 *     MariaDB, which announces them in place of CLIENT_MYSQL)
 * @param tls whether and how the connection is upgraded to TLS before the credentials are sent
 */
public record BackendLogin(
        String user,
        String password,
        String schema,
        int characterSet,
        int capabilities,
        int mariaDbCapabilities,
        BackendTlsSettings tls) {
    public BackendLogin {
        tls = tls == null ? BackendTlsSettings.DISABLED : tls;
    }

    @Override
    public String toString() {
        return "BackendLogin[user=" + user + ", schema=" + schema + ", " + tls.describe()
                + "]"; // never print the password
    }
}
