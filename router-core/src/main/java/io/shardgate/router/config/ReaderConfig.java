package io.shardgate.router.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.ArrayList;
import java.util.List;

/**
 * A replica of a hostgroup: where it is, its share of the reads and its own connection bound.
 * Written either as a bare {@code "host:port"} or as {@code {address, weight, max_connections}}.
 *
 * @param address {@code host:port}
 * @param weight share of the hostgroup's reads relative to the other readers (default 1)
 * @param maxConnections connections to this server, or null for the hostgroup's
 *     {@code pool.max_connections}
 */
public record ReaderConfig(String address, Integer weight, Integer maxConnections) {
    public ReaderConfig {
        weight = weight == null ? 1 : weight;
    }

    /** The short form {@code "host:port"}. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static ReaderConfig of(String address) {
        return new ReaderConfig(address, null, null);
    }

    List<String> validate(String at) {
        List<String> problems = new ArrayList<>();
        if (address == null) {
            problems.add(at + ".address is required (host:port)");
        } else {
            try {
                BackendAddress.parse(address);
            } catch (ConfigException e) {
                problems.add(at + ".address: " + e.getMessage());
            }
        }
        if (weight < 0) {
            problems.add(at + ".weight must not be negative, was " + weight);
        }
        if (maxConnections != null && maxConnections < 1) {
            problems.add(at + ".max_connections must be at least 1, was " + maxConnections);
        }
        return problems;
    }

    public BackendAddress backendAddress() {
        return BackendAddress.parse(address);
    }
}
