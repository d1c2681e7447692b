package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.StatementEffects;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

/**
 * A client session's binary-protocol commands (COM_STMT_*) under multiplexing. The statement ids
 * the client holds are the router's: COM_STMT_PREPARE_OK is rewritten as it is relayed, and
 * COM_STMT_EXECUTE, _FETCH, _RESET and _SEND_LONG_DATA go to the borrowed connection with that
 * connection's own id — preparing the statement there first when it has not yet. Runs on the
 * session's event loop.
 */
final class PreparedStatementCommands {
    private final FrontendSession session;
    private final PreparedStatements statements = new PreparedStatements();
    /** SQL of the COM_STMT_PREPARE in flight, registered when its COM_STMT_PREPARE_OK passes. */
    private String pendingSql;

    PreparedStatementCommands(FrontendSession session) {
        this.session = session;
    }

    /** COM_STMT_PREPARE: prepared on the borrowed connection; the answer is relayed. */
    void prepare(Packet packet) {
        ByteBuf payload = packet.payload();
        pendingSql = payload.toString(payload.readerIndex() + 1, payload.readableBytes() - 1, StandardCharsets.UTF_8);
        session.run(session.home(), packet, Response.PREPARE, StatementEffects.NONE, false);
    }

    /** The command in flight ended (or was answered by the router). */
    void commandFinished() {
        pendingSql = null;
    }

    /** COM_RESET_CONNECTION / COM_CHANGE_USER: the session's statements are gone. */
    void clear() {
        statements.clear();
    }

    /** A COM_STMT_PREPARE_OK passes: register the statement and give the client the router's id. */
    void prepareOk(BackendLease lease, ByteBuf in, int payload) {
        PooledConnection connection = lease.current();
        if (pendingSql == null || connection == null) {
            return;
        }
        int backendId = in.getIntLE(payload + 1);
        int clientId = statements.add(pendingSql, in.getUnsignedShortLE(payload + 7));
        remember(connection, pendingSql, backendId);
        in.setIntLE(payload + 1, clientId);
    }

    /** COM_STMT_EXECUTE, _FETCH, _RESET, _SEND_LONG_DATA or _CLOSE; takes ownership of {@code packet}. */
    void run(Packet packet, Command command) {
        ByteBuf payload = packet.payload();
        int id = payload.readableBytes() >= 5 ? payload.getIntLE(payload.readerIndex() + 1) : 0;
        PreparedStatements.Prepared statement = statements.get(id);
        if (command == Command.COM_STMT_CLOSE) {
            statements.remove(id); // no answer; connections keep their copies until evicted or reset
            packet.release();
            return;
        }
        BackendLease lease = session.home();
        if (statement == null) {
            packet.release();
            session.reply(
                    1, ErrPacket.of(ErrorCode.ER_UNKNOWN_STMT_HANDLER, Integer.toUnsignedString(id), command.name()));
            return;
        }
        if (command == Command.COM_STMT_RESET
                && (lease.current() == null || lease.current().statementId(statement.sql) == null)) {
            packet.release(); // nothing of it is bound on any server session this client holds
            session.reply(1, OkPacket.of(0, 0, lease.statusFlags(), 0));
            return;
        }
        session.withConnection(lease, packet, connection -> {
            Integer backendId = connection.statementId(statement.sql);
            if (backendId != null) {
                send(lease, connection, packet, command, statement, backendId);
                return;
            }
            lease.runInternal(
                    out -> out.writeByte(Command.COM_STMT_PREPARE.code())
                            .writeCharSequence(statement.sql, StandardCharsets.UTF_8),
                    Response.PREPARE,
                    (response, failed) -> {
                        if (failed) {
                            packet.release();
                            session.fail(ErrPacket.read(response.skipBytes(4)));
                            return;
                        }
                        int prepared = response.getIntLE(response.readerIndex() + 5);
                        remember(connection, statement.sql, prepared);
                        send(lease, connection, packet, command, statement, prepared);
                    });
        });
    }

    private void send(
            BackendLease lease,
            PooledConnection connection,
            Packet packet,
            Command command,
            PreparedStatements.Prepared statement,
            int backendId) {
        packet.payload().setIntLE(packet.payload().readerIndex() + 1, backendId);
        switch (command) {
            case COM_STMT_EXECUTE -> {
                lease.unpin(PinReason.LONG_DATA); // the long data is consumed by this execution
                session.send(
                        connection,
                        ExecuteTypes.bound(packet, statement),
                        Response.RESULT_SET,
                        StatementEffects.NONE,
                        false);
            }
            case COM_STMT_FETCH -> session.send(connection, packet, Response.ROWS, StatementEffects.NONE, false);
            case COM_STMT_RESET -> session.send(connection, packet, Response.SINGLE, StatementEffects.NONE, false);
            default -> {
                // COM_STMT_SEND_LONG_DATA: no answer; its data waits in that server session
                lease.pin(EnumSet.of(PinReason.LONG_DATA));
                session.send(connection, packet, null, StatementEffects.NONE, false);
            }
        }
    }

    /** Records a backend statement id on {@code connection}, closing one that falls out of its cache. */
    private static void remember(PooledConnection connection, String sql, int backendId) {
        Integer evicted = connection.rememberStatement(sql, backendId);
        if (evicted != null) {
            connection
                    .channel()
                    .writeAndFlush(PacketWriter.frame(
                            connection.channel().alloc(),
                            0,
                            5,
                            out -> out.writeByte(Command.COM_STMT_CLOSE.code()).writeIntLE(evicted)));
        }
    }
}
