package io.shardgate.router.routing;

import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a routing decision reads of the client session: its schema, the backend connections it
 * holds, its transaction and its pins. {@link StatementRouter} only reads it; the live session
 * answers from its current state, tests and benchmarks pass a fixed one.
 */
public interface SessionView {
    /** The session's current schema (unrouted and session statements go to its default hostgroup). */
    String schema();

    /** Whether the session holds a writer connection of {@code hostgroup} right now (pinned or mid-statement). */
    boolean holdsConnection(int hostgroup);

    /** Whether the session's BEGIN was answered by the router and no backend has begun it yet. */
    boolean transactionOnlyDeclared();

    /**
     * The hostgroups whose connection has a transaction open (or autocommit off), in the order the
     * session first used them.
     */
    List<Integer> transactionHostgroups();

    /** Why the session holds connections. */
    Set<PinReason> pins();

    /** The session's LAST_INSERT_ID() while it comes from the router's key generation, else 0. */
    long lastInsertId();

    /** The session variables replayed on its connections: name (lower case) to {@code "name = value"}. */
    Map<String, String> variables();

    /** ROW_COUNT() of the previous statement when the router knows it (a merge), else {@link PreviousStatement#UNKNOWN}. */
    long previousRowCount();

    /** FOUND_ROWS() of the previous statement when the router knows it, else {@link PreviousStatement#UNKNOWN}. */
    long previousFoundRows();
}
