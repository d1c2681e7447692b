package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;
import java.nio.charset.Charset;
import java.util.List;
import java.util.function.Consumer;

/**
 * What an executor ({@link QueryRouter}, {@link PreparedStatementCommands}, {@link
 * ScatterExecution}, {@link TransactionBroadcast} and their helpers) may ask of its client session:
 * the session's state, its leases, answering the client, and the life of the command in flight —
 * run on one lease and relayed, or answered by the router from several ({@code startRouted} ...
 * {@code finishRouted}). {@link ClientSession} implements it, the command in flight ({@link
 * CommandInFlight}) carries the command's part out; the queue, backpressure, login and lifecycle
 * ({@link FrontendSession}) stay behind it.
 *
 * <p>Every call is made on the session's event loop. A method that takes the client's {@link
 * Packet} takes ownership of it.
 */
public interface SessionPort {
    FrontendServices services();

    /** The session id the client got in its handshake (CONNECTION_ID(), KILL, PROCESSLIST's Id). */
    int connectionId();

    UserConfig user();

    /** The server session state the client asked for (schema, tracked variables). */
    SessionVariables desired();

    Capabilities capabilities();

    /** The client channel (its allocator sizes the router's own packets). */
    Channel client();

    /** The client's host, as access-denied messages and the failed-login count name it. */
    String remoteHost();

    SessionLeases leases();

    /** The lease of the current schema's default hostgroup: session commands and unrouted ones go there. */
    BackendLease home();

    SessionTransaction transaction();

    /** The moving tables the session's open transaction touched (see {@link MovingTablesTouched}). */
    MovingTablesTouched movingTablesTouched();

    /** The statement in flight, timed for the metrics. */
    StatementRecorder statement();

    LastInsertId lastInsertId();

    /**
     * Before a statement that reads LAST_INSERT_ID() by name: reads the session's value off the
     * connection that holds it ({@link LastInsertId#holder()}), keeps it, then runs {@code then}
     * (the next command waits); {@code dropped} runs instead if the session closed meanwhile.
     */
    void readLastInsertId(BackendLease holder, Runnable then, Runnable dropped);

    /**
     * The text of a command's payload after its command byte in the client's character set, or
     * null when the router cannot decode it (an unknown character set and bytes beyond ASCII).
     */
    String text(ByteBuf payload);

    /** The character set of statement text to and from the client's backend connections. */
    Charset textCharset();

    /** What FOUND_ROWS() and ROW_COUNT() read: the previous statement's outcome. */
    PreviousStatement previous();

    SessionCache cache();

    /**
     * Borrows and aligns a connection of {@code lease}'s hostgroup, then forwards the command;
     * {@code response} null: none comes.
     */
    default void run(BackendLease lease, Packet packet, Response response, StatementEffects effects, boolean insert) {
        run(lease, packet, response, effects, insert, false);
    }

    /**
     * As {@link #run(BackendLease, Packet, Response, StatementEffects, boolean)}; {@code read}: the
     * statement changes no data, so it may run again if its connection is lost unanswered.
     */
    void run(
            BackendLease lease,
            Packet packet,
            Response response,
            StatementEffects effects,
            boolean insert,
            boolean read);

    /**
     * Marks a command in progress and borrows a connection of {@code lease}'s hostgroup aligned to
     * the session (and inside its transaction) for it; {@code then} runs unless the command was
     * answered already (no connection, session closed). When {@code retryable}, the command is kept
     * until its response starts and runs once more, {@code then} again on a fresh connection, if the
     * one borrowed for it was dead before the server read it.
     */
    void withConnection(BackendLease lease, Packet packet, Consumer<PooledConnection> then, boolean retryable);

    /**
     * Sends the command in progress on {@code connection} (borrowed by {@link #withConnection});
     * its response, if {@code response} is not null, is relayed and ends the command, applying
     * {@code effects} to the session when it succeeds.
     */
    void send(PooledConnection connection, Packet packet, Response response, StatementEffects effects, boolean insert);

    /**
     * Answers the command in progress with {@code error} instead of a backend's response; its
     * packet, if not sent yet, is released.
     */
    void fail(ErrPacket error);

    /**
     * Marks a command in progress that the router answers from several connections itself
     * ({@link ScatterExecution}, multi-hostgroup COMMIT); it calls {@link #finishRouted} at the end.
     */
    default void startRouted(Runnable abort) {
        startRouted(abort, null);
    }

    /** As {@link #startRouted(Runnable)}; {@code writable} runs when the client can take writes again. */
    void startRouted(Runnable abort, Runnable writable);

    /**
     * What the client must also hear should a backend connection of the routed command in progress
     * be lost (the end of a two_phase transaction: its xid and what became of it); cleared when
     * the command ends.
     */
    void routedLossNote(java.util.function.Supplier<String> note);

    /**
     * The command started with {@link #startRouted} waits for a move's cutover and has reached no
     * backend (the cutover need not wait for it); {@link #resumeRouted} ends the wait.
     */
    void waitsForMove();

    /**
     * A command started with {@link #startRouted} (parked behind a cache fill) runs after all:
     * {@code command} routes it as if it had just arrived.
     */
    void resumeRouted(Runnable command);

    /** Part of a merged answer ({@link #finishRouted} ends it): the result cache may collect it. */
    void writeRouted(ByteBuf frames);

    /**
     * Ends a command the router ran on several hostgroups in turn: the client gets {@code firstError},
     * or OK with the session's status flags when every hostgroup succeeded.
     */
    default void finishRoutedWith(ErrPacket firstError) {
        int status = leases().statusFlags();
        finishRouted(
                firstError != null
                        ? frame(1, firstError::write)
                        : frame(1, out -> OkPacket.of(0, 0, status, 0).write(out, capabilities())));
    }

    /** A command started with {@link #startRouted} was answered with {@code response} (framed, released here). */
    void finishRouted(ByteBuf response);

    /** Writes {@code frames} (released by the channel) to the client as they are, outside any result-cache fill. */
    void write(ByteBuf frames);

    /** A packet of the router's own, framed with {@code sequenceId}. */
    ByteBuf frame(int sequenceId, Consumer<ByteBuf> payload);

    void reply(int sequenceId, OkPacket ok);

    /**
     * What the command about to run does to the diagnostics area when it raises nothing: READS (SHOW
     * WARNINGS...) keeps the connection's hold as it was (see {@link DiagnosticsHold}); CLEARS and
     * KEEPS say whether the warnings another connection holds, or the unknown state, stay the
     * session's (see {@link DiagnosticsArea}). Unsaid, a command is UNSURE.
     */
    void diagnosticsEffect(DiagnosticsEffect effect);

    /** Answers with {@code error}: counted, and the command's result-cache fill abandoned. */
    void reply(int sequenceId, ErrPacket error);

    /** Answers the command with a small text result set the router builds itself. */
    void replyRows(List<TextResultSet.Column> columns, List<List<Object>> rows);
}
