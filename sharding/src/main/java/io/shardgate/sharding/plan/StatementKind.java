package io.shardgate.sharding.plan;

/** The family of a statement, as the planner saw it. */
public enum StatementKind {
    SELECT,
    INSERT,
    UPDATE,
    DELETE,
    DDL,
    SESSION,
    SHOW,
    OTHER
}
