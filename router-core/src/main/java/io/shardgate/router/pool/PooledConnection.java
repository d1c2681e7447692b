package io.shardgate.router.pool;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.shardgate.protocol.frame.PacketFrameEncoder;
import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.backend.BackendRelayHandler;
import io.shardgate.router.backend.RelayTarget;
import io.shardgate.router.session.SessionVariables;

/**
 * A pooled backend connection: the authenticated channel, its relay, and the session state the
 * server holds for it (schema and replayed variables), so a borrower can tell what to change.
 *
 * <p>While idle its relay points at the connection itself: a server that closes it or sends
 * anything unasked gets it removed from the pool.
 */
public final class PooledConnection implements RelayTarget {
    private final BackendConnection connection;
    private final BackendRelayHandler relay;
    private final PoolPartition partition;
    private final ConnectionKind kind;
    private final long createdNanos;
    /** {@link BackendPool#globalsVersion()} when the connection was opened. */
    private final long globalsVersion;

    private long idleSinceNanos;
    private SessionVariables state;
    private boolean lost;
    /** Statements prepared on this server session: SQL text to backend id, least recently used first. */
    private final java.util.LinkedHashMap<String, Integer> statements = new java.util.LinkedHashMap<>(16, 0.75f, true);

    private boolean discarded;
    /**
     * The LAST_INSERT_ID() this server session holds, when {@link #lastInsertIdKnown} (a new one
     * holds 0). A server session keeps the value for good, so a client session that may read it is
     * given its own first (see {@code BackendLease}).
     */
    private long lastInsertId;

    private boolean lastInsertIdKnown = true;

    PooledConnection(
            BackendConnection connection,
            boolean deprecateEof,
            int queryTimeoutMillis,
            PoolPartition partition,
            ConnectionKind kind,
            SessionVariables state,
            long globalsVersion) {
        this.connection = connection;
        this.globalsVersion = globalsVersion;
        this.partition = partition;
        this.kind = kind;
        this.state = state;
        this.createdNanos = System.nanoTime();
        this.relay = new BackendRelayHandler(this, deprecateEof, connection.label(), queryTimeoutMillis);
        // commands go out as Packets (client commands keep their sequence ids), responses come back raw
        connection.addNearestSocket("encoder", new PacketFrameEncoder());
        connection.attach(relay);
    }

    public BackendConnection connection() {
        return connection;
    }

    public Channel channel() {
        return connection.channel();
    }

    /** The pool partition (server, event loop) the connection goes back to. */
    public PoolPartition partition() {
        return partition;
    }

    public BackendRelayHandler relay() {
        return relay;
    }

    /** What the server session currently holds (schema, replayed variables). */
    public SessionVariables state() {
        return state;
    }

    public void state(SessionVariables state) {
        this.state = state;
    }

    /** Prepared statements kept per connection; beyond this the least recently used is closed. */
    public static final int MAX_STATEMENTS = 256;

    /** The backend id of {@code sql} prepared on this connection, or null. */
    public Integer statementId(String sql) {
        return statements.get(sql);
    }

    /**
     * Remembers that {@code sql} is prepared here as {@code id}; returns the backend id of a
     * statement to close (COM_STMT_CLOSE) — a replaced copy, or the least recently used one when
     * the cache is full — or null.
     */
    public Integer rememberStatement(String sql, int id) {
        Integer previous = statements.put(sql, id);
        if (previous != null && previous != id) {
            return previous; // prepared again here: the older copy is no longer reachable
        }
        if (statements.size() <= MAX_STATEMENTS) {
            return null;
        }
        var eldest = statements.entrySet().iterator();
        Integer evicted = eldest.next().getValue();
        eldest.remove();
        return evicted;
    }

    /** The server session was reset: its prepared statements are gone. */
    public void forgetStatements() {
        statements.clear();
    }

    /** True when this server session's LAST_INSERT_ID() is known to be {@code value} (see the field). */
    public boolean holdsLastInsertId(long value) {
        return lastInsertIdKnown && lastInsertId == value;
    }

    /** This server session's LAST_INSERT_ID() is {@code value} now (read, set or reset by the router). */
    public void lastInsertId(long value) {
        lastInsertId = value;
        lastInsertIdKnown = true;
    }

    /** A statement may have changed this server session's LAST_INSERT_ID(). */
    public void lastInsertIdUnknown() {
        lastInsertIdKnown = false;
    }

    /** The kind it serves now: the one it was opened as, unless a schema was selected since. */
    ConnectionKind kind() {
        return kind.selected(state.schema());
    }

    /** True the first time only: the connection's slot is given back once. */
    boolean markDiscarded() {
        if (discarded) {
            return false;
        }
        discarded = true;
        return true;
    }

    long createdNanos() {
        return createdNanos;
    }

    long globalsVersion() {
        return globalsVersion;
    }

    long idleSinceNanos() {
        return idleSinceNanos;
    }

    void markIdle(long now) {
        idleSinceNanos = now;
        relay.target(this);
        // a borrower may have paused reads for a slow client; the next one must see its responses
        connection.channel().config().setAutoRead(true);
    }

    /**
     * A KILL was aimed at this connection's server thread while a session's statement ran on it:
     * the pool never takes it back (it is closed when that session lets go of it), so the KILL,
     * which travels on another connection and may land late, can only hit the session that was
     * killed or a closed thread, never a statement of a session that borrowed the connection next.
     */
    public void markKillTarget() {
        lost = true;
    }

    boolean usable() {
        return !lost && !discarded && connection.channel().isActive() && relay.idle();
    }

    // While idle the connection is its own relay target: anything from the server ends it.

    @Override
    public Channel client() {
        return connection.channel();
    }

    @Override
    public void responsesComplete(int count, int statusFlags, boolean lastWasError) {
        lost = true;
    }

    @Override
    public void internalResponse(ByteBuf response, boolean error) {
        lost = true;
    }

    @Override
    public void localInfileRequested() {
        lost = true;
    }

    @Override
    public void backendLost(String reason, boolean midPacket, int nextSequenceId) {
        lost = true;
        partition.idleConnectionLost(this);
    }

    @Override
    public String toString() {
        return "PooledConnection[" + connection + "]";
    }
}
