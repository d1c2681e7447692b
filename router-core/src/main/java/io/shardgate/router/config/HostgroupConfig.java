package io.shardgate.router.config;

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
 * @param readers {@code host:port} of replicas
 * @param user backend account
 * @param password backend password (may be empty)
 * @param pool connection pool settings for each server of the hostgroup
 */
public record HostgroupConfig(
        int id, String writer, List<String> readers, String user, String password, PoolSettings pool) {
    public HostgroupConfig {
        readers = readers == null ? List.of() : List.copyOf(readers);
        password = password == null ? "" : password;
        pool = pool == null ? PoolSettings.defaults() : pool;
    }

    List<String> validate() {
        List<String> problems = new ArrayList<>();
        String at = "hostgroups[id=" + id + "]";
        if (writer == null) {
            problems.add(at + ".writer is required (host:port)");
        } else {
            checkAddress(problems, at + ".writer", writer);
        }
        for (String reader : readers) {
            checkAddress(problems, at + ".readers", reader);
        }
        if (user == null || user.isEmpty()) {
            problems.add(at + ".user is required");
        }
        problems.addAll(pool.validate(at));
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
