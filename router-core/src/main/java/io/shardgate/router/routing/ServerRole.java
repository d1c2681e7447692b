package io.shardgate.router.routing;

/** What a server does in its hostgroup right now; the monitor swaps roles when read_only flips. */
public enum ServerRole {
    WRITER,
    READER
}
