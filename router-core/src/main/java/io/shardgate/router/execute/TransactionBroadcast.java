package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.EscapedText;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import java.util.List;

/**
 * COMMIT, ROLLBACK, SAVEPOINT or RELEASE of a transaction that reached several hostgroups: the
 * statement runs on each of their connections in turn, and the client gets OK, or the first
 * error. There is no two-phase commit: a COMMIT that fails on one hostgroup after succeeding on
 * another leaves the other committed (documented as local transactions, like ShardingSphere's
 * LOCAL mode); every connection still gets the statement, so none stays in the transaction.
 */
final class TransactionBroadcast {
    private final SessionPort session;
    private final List<BackendLease> leases;
    private final String sql;
    /** Hears the first error (null: every hostgroup succeeded) once each ran the statement. */
    private final java.util.function.Consumer<ErrPacket> then;
    /** Runs if the session closes before {@code then} ran. */
    private final Runnable abort;

    private ErrPacket firstError;
    private int next;

    TransactionBroadcast(SessionPort session, List<BackendLease> leases, String sql) {
        this(session, leases, sql, session::finishRoutedWith, () -> {});
    }

    /**
     * As above; {@code then} answers the client instead of OK or the first error, {@code abort}
     * releases what it holds should the session close first.
     */
    TransactionBroadcast(
            SessionPort session,
            List<BackendLease> leases,
            String sql,
            java.util.function.Consumer<ErrPacket> then,
            Runnable abort) {
        this.session = session;
        this.leases = leases;
        this.sql = sql;
        this.then = then;
        this.abort = abort;
    }

    void start() {
        session.startRouted(abort);
        runNext();
    }

    private void runNext() {
        if (next == leases.size()) {
            then.accept(firstError);
            return;
        }
        BackendLease lease = leases.get(next++);
        lease.runInternal(
                out -> EscapedText.write(out.writeByte(Command.COM_QUERY.code()), sql, session.textCharset()),
                Response.SINGLE,
                (ByteBuf response, Boolean failed) -> {
                    if (failed && firstError == null) {
                        firstError = ErrPacket.read(response.skipBytes(4));
                    }
                    lease.afterResponse(lease.current().relay().statusFlags(), false);
                    runNext();
                });
    }
}
