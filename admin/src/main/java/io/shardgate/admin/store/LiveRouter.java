package io.shardgate.admin.store;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A router process registered in the cluster (an ephemeral ZooKeeper node that disappears with its
 * session).
 *
 * @param id unique per router, also its node name
 * @param host where clients and operators reach it
 * @param ports listener name ({@code mysql}, {@code admin}, {@code http}) to port
 * @param configVersion the configuration version it runs, 0 while it has none
 */
public record LiveRouter(String id, String host, Map<String, Integer> ports, long configVersion) {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    public LiveRouter {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("router id '" + id + "' is not [A-Za-z0-9][A-Za-z0-9._:-]*");
        }
        Objects.requireNonNull(host, "host");
        ports = Map.copyOf(new TreeMap<>(ports));
    }

    /** The same router running another configuration version. */
    public LiveRouter withConfigVersion(long version) {
        return new LiveRouter(id, host, ports, version);
    }
}
