package io.shardgate.sharding.plan;

import java.util.Objects;

/** Everything a {@link Plan} depends on: the rule version, the session's schema, the digest hash. */
public record PlanKey(long ruleVersion, String schema, long digest) {
    @Override
    public int hashCode() {
        return hash(ruleVersion, schema, digest);
    }

    /** The hash of a key of these fields; {@link PlanCache}'s lookup probe uses it too. */
    static int hash(long ruleVersion, String schema, long digest) {
        return 31 * (31 * Long.hashCode(ruleVersion) + Objects.hashCode(schema)) + Long.hashCode(digest);
    }
}
