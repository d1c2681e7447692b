package io.shardgate.router.config;

import io.shardgate.router.tls.BackendTlsSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A hostgroup: one writer and zero or more readers, and the credentials the router uses to log
 * in to them. Backend passwords cannot be hashed: the MySQL auth plugins need the password itself
 * (or its SHA1/SHA256) to answer a server's challenge. So that the shared configuration (ZooKeeper,
 * the admin APIs) need not hold them, {@code password} may be a reference to an environment
 * variable ({@code ${NAME}}) or be replaced by {@code password_file}; each router resolves them
 * from its own environment when it opens the hostgroup ({@link #withResolvedPassword()}).
 *
 * @param id number referenced by schemas and query rules
 * @param writer {@code host:port} of the primary
 * @param readers replicas that serve reads outside transactions, by weight
 * @param user backend account (the monitor logs in with it too)
 * @param password backend password (may be empty), or {@code ${NAME}}: the environment variable NAME
 * @param pool connection pool settings for each server of the hostgroup
 * @param monitor health checks of the hostgroup's servers
 * @param readYourWritesMillis after a session wrote to this hostgroup its reads stay on the
 *     writer this long, so a read right after a write sees it (default 1000)
 * @param maxReplicationLag seconds a reader may lag behind its primary and still serve reads
 *     (0, the default: lag is not checked); a reader whose replication is stopped counts as over
 * @param tls TLS to the hostgroup's servers (default: none)
 * @param passwordFile a file holding the backend password (one trailing newline is ignored), read by
 *     each router; in place of {@code password}
 */
public record HostgroupConfig(
        int id,
        String writer,
        List<ReaderConfig> readers,
        String user,
        String password,
        PoolSettings pool,
        MonitorSettings monitor,
        Integer readYourWritesMillis,
        Integer maxReplicationLag,
        BackendTlsConfig tls,
        String passwordFile) {
    /** What the admin interfaces show in place of a literal backend password; never a password itself. */
    public static final String HIDDEN_PASSWORD = "<hidden>";

    private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    public HostgroupConfig {
        readers = readers == null ? List.of() : List.copyOf(readers);
        password = password == null && passwordFile == null ? "" : password;
        pool = pool == null ? PoolSettings.defaults() : pool;
        monitor = monitor == null ? MonitorSettings.defaults() : monitor;
        readYourWritesMillis = readYourWritesMillis == null ? 1000 : readYourWritesMillis;
        maxReplicationLag = maxReplicationLag == null ? 0 : maxReplicationLag;
    }

    /** The backend TLS settings (disabled when the section is absent); the hostgroup must be valid. */
    public BackendTlsSettings tlsSettings() {
        return tls == null ? BackendTlsSettings.DISABLED : tls.toSettings();
    }

    List<String> validate() {
        List<String> problems = new ArrayList<>();
        String at = "hostgroups[id=" + id + "]";
        if (writer == null) {
            problems.add(at + ".writer is required (host:port)");
        } else {
            checkAddress(problems, at + ".writer", writer);
        }
        List<String> addresses = new ArrayList<>();
        if (writer != null) {
            addresses.add(writer.trim());
        }
        for (int i = 0; i < readers.size(); i++) {
            ReaderConfig reader = readers.get(i);
            problems.addAll(reader.validate(at + ".readers[" + i + "]"));
            if (reader.address() != null && addresses.contains(reader.address().trim())) {
                problems.add(at + ".readers[" + i + "]: " + reader.address() + " is listed twice");
            }
            addresses.add(reader.address() == null ? "" : reader.address().trim());
        }
        if (user == null || user.isEmpty()) {
            problems.add(at + ".user is required");
        }
        if (readYourWritesMillis < 0 || maxReplicationLag < 0) {
            problems.add(at + ".read_your_writes_millis and max_replication_lag must not be negative");
        }
        problems.addAll(pool.validate(at));
        problems.addAll(monitor.validate(at));
        if (tls != null) {
            problems.addAll(tls.validate(at));
        }
        if (HIDDEN_PASSWORD.equals(password)) {
            problems.add(at + ".password is " + HIDDEN_PASSWORD + " (as the admin interfaces show it) and no stored"
                    + " hostgroup has this id or this user and writer to take it from: give the password");
        }
        if (password != null && passwordFile != null) {
            problems.add(at + ": give password or password_file, not both");
        }
        try {
            withResolvedPassword();
        } catch (ConfigException e) {
            problems.add(e.getMessage());
        }
        return problems;
    }

    private static void checkAddress(List<String> problems, String key, String address) {
        try {
            BackendAddress.parse(address);
        } catch (ConfigException e) {
            problems.add(key + ": " + e.getMessage());
        }
    }

    /**
     * This hostgroup with the backend password itself in {@code password}: read from {@code
     * password_file}, or from the environment variable a {@code ${NAME}} password names. Done once
     * per hostgroup a router opens, off the event loops; the result is never published.
     *
     * @throws ConfigException naming the file or variable that cannot be read (never its content)
     */
    public HostgroupConfig withResolvedPassword() {
        String secret = password;
        String at = "hostgroups[id=" + id + "]";
        if (passwordFile != null) {
            try {
                secret = Files.readString(Path.of(passwordFile), StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                throw new ConfigException(at + ".password_file: cannot read " + passwordFile + ": " + e);
            }
            secret = secret.endsWith("\r\n")
                    ? secret.substring(0, secret.length() - 2)
                    : secret.endsWith("\n") ? secret.substring(0, secret.length() - 1) : secret;
        } else {
            Matcher reference = ENV_REFERENCE.matcher(password);
            if (reference.matches()) {
                secret = System.getenv(reference.group(1));
                if (secret == null) {
                    throw new ConfigException(
                            at + ".password: environment variable " + reference.group(1) + " is not set");
                }
            }
        }
        if (secret.equals(password) && passwordFile == null) {
            return this;
        }
        return new HostgroupConfig(
                id, writer, readers, user, secret, pool, monitor, readYourWritesMillis, maxReplicationLag, tls, null);
    }

    /** Like the record's own, with a literal password masked: a resolved one must never reach a log. */
    @Override
    public String toString() {
        return "HostgroupConfig[id=" + id + ", writer=" + writer + ", readers=" + readers + ", user=" + user
                + ", password=" + (password == null || password.isEmpty() ? password : "<hidden>")
                + ", passwordFile=" + passwordFile + ", pool=" + pool + ", monitor=" + monitor
                + ", readYourWritesMillis=" + readYourWritesMillis + ", maxReplicationLag=" + maxReplicationLag
                + ", tls=" + tls + "]";
    }

    /** The writer's address. */
    public BackendAddress writerAddress() {
        return BackendAddress.parse(Objects.requireNonNull(writer));
    }
}
