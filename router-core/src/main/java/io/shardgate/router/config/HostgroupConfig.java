package io.shardgate.router.config;

import io.shardgate.router.tls.BackendTlsSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A hostgroup: one writer and zero or more readers, and the credentials the router uses to log
 * in to them. Backend passwords are kept as given: the MySQL auth plugins need the password
 * itself (or its SHA1/SHA256) to answer a server's challenge.
 *
 * @param id number referenced by schemas and query rules
 * @param writer {@code host:port} of the primary
 * @param readers replicas that serve reads outside transactions, by weight
 * @param user backend account (the monitor logs in with it too)
 * @param password backend password (may be empty)
 * @param pool connection pool settings for each server of the hostgroup
 * @param monitor health checks of the hostgroup's servers
 * @param readYourWritesMillis after a session wrote to this hostgroup its reads stay on the
 *     writer this long, so a read right after a write sees it (default 1000)
 * @param maxReplicationLag seconds a reader may lag behind its primary and still serve reads
 *     (0, the default: lag is not checked); a reader whose replication is stopped counts as over
 * @param tls TLS to the hostgroup's servers (default: none)
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
        BackendTlsConfig tls) {
    public HostgroupConfig {
        readers = readers == null ? List.of() : List.copyOf(readers);
        password = password == null ? "" : password;
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
        return problems;
    }

    private static void checkAddress(List<String> problems, String key, String address) {
        try {
            BackendAddress.parse(address);
        } catch (ConfigException e) {
            problems.add(key + ": " + e.getMessage());
        }
    }

    /** The writer's address. */
    public BackendAddress writerAddress() {
        return BackendAddress.parse(Objects.requireNonNull(writer));
    }
}
