package io.shardgate.sharding.plan;

import java.util.List;

/**
 * SQL ready for one target, and for a prepared statement the client's placeholder numbers to bind,
 * in the order of the {@code ?} in {@code sql}.
 */
public record RenderedSql(String sql, List<Integer> parameters) {
    public RenderedSql {
        parameters = List.copyOf(parameters);
    }
}
