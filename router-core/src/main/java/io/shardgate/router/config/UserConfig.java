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
 */
public record UserConfig(String name, StoredCredential credential, String defaultSchema, boolean requireTls) {

    @JsonCreator
    static UserConfig fromYaml(
            @JsonProperty("name") String name,
            @JsonProperty("password") String password,
            @JsonProperty("password_hash") String passwordHash,
            @JsonProperty("default_schema") String defaultSchema,
            @JsonProperty("require_tls") Boolean requireTls) {
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
        return new UserConfig(name, credential, defaultSchema, Boolean.TRUE.equals(requireTls));
    }
}
