package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.EscapedText;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.PinReason;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * LOCK TABLES or UNLOCK TABLES on several hostgroups: each statement runs in turn on the session's
 * connection to its hostgroup (borrowed and aligned first when the session holds none), which is
 * pinned to the session from then on, as LOCK TABLES pins a single connection. The client gets OK,
 * or the first error; every hostgroup still gets its statement.
 */
final class LockBroadcast {
    private final SessionPort session;
    private final List<Map.Entry<Integer, String>> statements;
    private ErrPacket firstError;
    private int next;

    LockBroadcast(SessionPort session, Map<Integer, String> statements) {
        this.session = session;
        this.statements = new ArrayList<>(statements.entrySet());
    }

    void start() {
        session.startRouted(() -> {});
        runNext();
    }

    private void runNext() {
        if (next == statements.size()) {
            session.finishRoutedWith(firstError);
            return;
        }
        Map.Entry<Integer, String> statement = statements.get(next++);
        BackendLease lease = session.leases().get(statement.getKey());
        if (lease == null) {
            failed(Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "hostgroup " + statement.getKey() + " is not configured"));
            runNext();
            return;
        }
        lease.acquire(session.desired(), (connection, error) -> {
            if (error != null) {
                failed(error);
                runNext();
                return;
            }
            lease.pin(EnumSet.of(PinReason.LOCK_TABLES));
            String sql = statement.getValue();
            lease.runInternal(
                    out -> EscapedText.write(out.writeByte(Command.COM_QUERY.code()), sql, session.textCharset()),
                    Response.SINGLE,
                    (ByteBuf response, Boolean failed) -> {
                        if (failed) {
                            failed(ErrPacket.read(response.skipBytes(4)));
                        }
                        lease.afterResponse(lease.current().relay().statusFlags(), false);
                        runNext();
                    });
        });
    }

    private void failed(ErrPacket error) {
        if (firstError == null) {
            firstError = error;
        }
    }
}
