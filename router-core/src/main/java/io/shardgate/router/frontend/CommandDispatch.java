package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.execute.KillCommand;
import io.shardgate.router.execute.PreparedStatementCommands;
import io.shardgate.router.execute.ProcesslistCommand;
import io.shardgate.router.execute.QueryRouter;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.KillStatement;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.ProcesslistQuery;
import io.shardgate.router.session.StatementEffects;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command phase's dispatch: one client command (COM_*) to what carries it out — statements to
 * {@link QueryRouter} and {@link PreparedStatementCommands}, schema and metadata commands to the
 * hostgroup that can answer them, KILL and PROCESSLIST to the router's own views, CHANGE_USER and
 * RESET_CONNECTION to {@link SessionReset}; the rest is answered here. Event-loop confined.
 */
final class CommandDispatch {
    private static final Logger log = LoggerFactory.getLogger(CommandDispatch.class);

    private final SessionPort session;
    private final SessionLifecycle lifecycle;
    private final ClientText text;
    private final SessionReset reset;
    private final PreparedStatementCommands prepared;
    private final QueryRouter queries;
    /** What PROCESSLIST shows this session doing. */
    private final SessionActivity activity;

    CommandDispatch(
            SessionPort session,
            SessionLifecycle lifecycle,
            ClientText text,
            SessionReset reset,
            PreparedStatementCommands prepared,
            SessionActivity activity) {
        this.session = session;
        this.lifecycle = lifecycle;
        this.text = text;
        this.reset = reset;
        this.prepared = prepared;
        this.activity = activity;
        this.queries = new QueryRouter(session);
    }

    /** Routes one command; takes ownership of {@code packet}. */
    void dispatch(Packet packet) {
        ByteBuf payload = packet.payload();
        Command command = payload.isReadable() ? Command.of(payload.getUnsignedByte(payload.readerIndex())) : null;
        if (command == null) {
            packet.release();
            session.reply(1, ErrPacket.of(ErrorCode.ER_UNKNOWN_COM_ERROR));
            return;
        }
        session.services().metrics().command(command);
        session.statement().forget();
        session.previous().commandStarts(command);
        ErrPacket tooLong = statementTooLong(command, payload);
        if (tooLong != null) {
            packet.release();
            session.reply(1, tooLong);
            return;
        }
        String sql = command == Command.COM_QUERY || command == Command.COM_STMT_PREPARE ? text.text(payload) : null;
        activity.started(command, sql);
        switch (command) {
            case COM_QUERY -> {
                if (sql == null) {
                    packet.release();
                    session.reply(1, text.undecodable());
                    return;
                }
                queries.route(packet, sql);
            }
            case COM_INIT_DB -> initDb(packet);
            case COM_STMT_PREPARE -> prepared.prepare(packet);
            case COM_STMT_EXECUTE, COM_STMT_FETCH, COM_STMT_RESET, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE ->
                prepared.run(packet, command);
            case COM_FIELD_LIST ->
                session.run(fieldListLease(payload), packet, Response.FIELD_LIST, StatementEffects.NONE, false);
            case COM_STATISTICS ->
                session.run(session.home(), packet, Response.STATISTICS, StatementEffects.NONE, false);
            case COM_PROCESS_INFO -> {
                packet.release(); // the router's sessions, not the backend's threads
                ProcesslistCommand.run(session, ProcesslistQuery.parse("SHOW PROCESSLIST"));
            }
            case COM_PROCESS_KILL -> {
                long id = payload.readableBytes() >= 5 ? payload.getUnsignedIntLE(payload.readerIndex() + 1) : -1;
                packet.release();
                KillCommand.run(session, new KillStatement(false, id, null));
            }
            case COM_DEBUG, COM_REFRESH ->
                session.run(session.home(), packet, Response.SINGLE, StatementEffects.NONE, false);
            case COM_SET_OPTION -> {
                // switches multi-statements on that server session only
                session.home().pin(EnumSet.of(PinReason.UNTRACKED_SET));
                session.run(session.home(), packet, Response.SINGLE, StatementEffects.NONE, false);
            }
            case COM_RESET_CONNECTION -> reset.resetConnection(packet);
            case COM_PING -> {
                packet.release();
                session.reply(1, OkPacket.of(0, 0, session.leases().statusFlags(), 0));
            }
            case COM_QUIT -> {
                packet.release();
                lifecycle.close();
            }
            case COM_CHANGE_USER -> reset.changeUser(packet);
            default -> {
                packet.release();
                // replication, shutdown, kill by backend id...: a router cannot pass these on safely
                session.reply(1, Errors.notSupported(command.name() + " through the router"));
            }
        }
    }

    /** COM_INIT_DB (USE): runs on the new schema's default hostgroup, which the session then belongs to. */
    private void initDb(Packet packet) {
        String schema = text.text(packet.payload());
        if (schema == null) {
            packet.release();
            session.reply(1, text.undecodable());
            return;
        }
        session.run(
                session.leases().get(session.services().routing().current().homeOf(schema)),
                packet,
                Response.SINGLE,
                new StatementEffects(Map.of(), schema, Set.of(), false, false),
                false);
    }

    /**
     * ER_NET_PACKET_TOO_LARGE for SQL text beyond {@code server.max_statement_bytes}, or null. The
     * session stays open (unlike a packet beyond max_allowed_packet, after which MySQL closes): the
     * whole packet was read, so the stream is still in step. Vitess answers its max_payload_size
     * the same way.
     */
    private ErrPacket statementTooLong(Command command, ByteBuf payload) {
        int max = session.services().settings().maxStatementBytes();
        int length = payload.readableBytes() - 1;
        if (max == 0 || length <= max || (command != Command.COM_QUERY && command != Command.COM_STMT_PREPARE)) {
            return null;
        }
        log.debug("connection {}: {} of {} bytes refused", session.connectionId(), command, length);
        return Errors.of(
                ErrorCode.ER_NET_PACKET_TOO_LARGE,
                "Statement of " + length + " bytes is larger than server.max_statement_bytes (" + max + " bytes)");
    }

    /** COM_FIELD_LIST names a table: ask a hostgroup that holds it. */
    private BackendLease fieldListLease(ByteBuf payload) {
        int end = payload.indexOf(payload.readerIndex() + 1, payload.writerIndex(), (byte) 0);
        String table = payload.toString(
                payload.readerIndex() + 1,
                (end < 0 ? payload.writerIndex() : end) - payload.readerIndex() - 1,
                text.charset());
        return session.leases()
                .get(session.services()
                        .routing()
                        .current()
                        .anyHostgroupOf(session.desired().schema(), table));
    }
}
