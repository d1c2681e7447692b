package io.shardgate.router.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.shardgate.protocol.auth.StoredCredential;

/**
 * A MySQL account clients log in with. The YAML gives either {@code password} or
 * {@code password_hash} (MySQL's {@code *HEX} stage-two hash, as {@code SELECT PASSWORD('x')}
 * prints it, optionally followed by {@code sha2:HEX64}, caching_sha2_password's: the form the
 * control plane stores); the plaintext is hashed while the file is read and never stored.
 *
 * @param name the user name clients send
 * @param credential the password hashes the auth plugins verify against
 * @param defaultSchema schema selected when the client names none (nullable)
 * @param requireTls the account logs in over TLS only, as a MySQL account created {@code REQUIRE
 *     SSL}: a login without TLS is refused with ER_ACCESS_DENIED_ERROR even with the right password
 * @param maxConnections connections this user may hold at once (MySQL's per-account
 *     MAX_USER_CONNECTIONS); more get ER_USER_LIMIT_REACHED; 0 means no per-user limit
 * @param connectionAdmin the router's equivalent of MySQL's PROCESS and CONNECTION_ADMIN (SUPER)
 *     privileges: {@code SHOW PROCESSLIST} lists every user's sessions and {@code KILL} may end
 *     them; without it a user sees and kills only sessions logged in under its own name
 */
public record UserConfig(
        String name,
        StoredCredential credential,
        String defaultSchema,
        boolean requireTls,
        int maxConnections,
        boolean connectionAdmin) {

    /** An account without {@code connection_admin}. */
    public UserConfig(
            String name, StoredCredential credential, String defaultSchema, boolean requireTls, int maxConnections) {
        this(name, credential, defaultSchema, requireTls, maxConnections, false);
    }

    /**
     * Stands in for an account whose entry failed its checks while the rest of the file is read,
     * so every problem of the file is reported at once; a configuration holding it is never used.
     */
    static final UserConfig UNREADABLE = new UserConfig("", StoredCredential.NO_PASSWORD, null);

    /** A user without TLS requirement or connection limit of its own. */
    public UserConfig(String name, StoredCredential credential, String defaultSchema) {
        this(name, credential, defaultSchema, false, 0, false);
    }

    @JsonCreator
    static UserConfig fromYaml(
            @JsonProperty("name") String name,
            @JsonProperty("password") String password,
            @JsonProperty("password_hash") String passwordHash,
            @JsonProperty("default_schema") String defaultSchema,
            @JsonProperty("require_tls") Boolean requireTls,
            @JsonProperty("max_connections") Integer maxConnections,
            @JsonProperty("connection_admin") Boolean connectionAdmin) {
        if (name == null || name.isEmpty()) {
            throw new ConfigException("users[].name is required");
        }
        if ((password == null) == (passwordHash == null)) {
            throw new ConfigException("user '" + name + "': give exactly one of password or password_hash");
        }
        StoredCredential credential;
        try {
            credential =
                    password != null ? StoredCredential.fromPassword(password) : StoredCredential.parse(passwordHash);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("user '" + name + "': " + e.getMessage());
        }
        if (maxConnections != null && maxConnections < 0) {
            throw new ConfigException(
                    "user '" + name + "': max_connections must be 0 (no limit) or more, was " + maxConnections);
        }
        return new UserConfig(
                name,
                credential,
                defaultSchema,
                Boolean.TRUE.equals(requireTls),
                maxConnections == null ? 0 : maxConnections,
                Boolean.TRUE.equals(connectionAdmin));
    }
}
