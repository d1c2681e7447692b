package io.shardgate.sharding.rule;

/** Which server of a hostgroup a statement may run on: any reader, or only the writer. */
public enum Role {
    READER,
    WRITER
}
