package io.shardgate.sharding.plan;

/** Everything a {@link Plan} depends on: the rule version, the session's schema, the digest hash. */
public record PlanKey(long ruleVersion, String schema, long digest) {}
