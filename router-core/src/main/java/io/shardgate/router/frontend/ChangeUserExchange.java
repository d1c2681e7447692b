package io.shardgate.router.frontend;

import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ComChangeUser;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.login.ClientAuthentication;

/**
 * COM_CHANGE_USER: authenticates the new user against the scramble of the connection's original
 * handshake (as MySQL does), following auth switches and caching_sha2_password round trips, then
 * lets the session start over as that user. A failed attempt ends the connection, as in MySQL; a
 * wrong password counts as a failed login of the client's address, and the connection's
 * per-user slot moves to the new user (ERROR 1226 when it has none free).
 */
final class ChangeUserExchange {
    private final ComChangeUser request;
    private final ClientAuthentication auth;
    private final byte[] seed;
    private final SessionPort session;
    private final SessionLifecycle lifecycle;
    private final SessionReset reset;
    private int sequenceId;
    private boolean awaitingClient;

    ChangeUserExchange(
            ComChangeUser request,
            ClientAuthentication auth,
            byte[] seed,
            SessionPort session,
            SessionLifecycle lifecycle,
            SessionReset reset) {
        this.request = request;
        this.auth = auth;
        this.seed = seed;
        this.session = session;
        this.lifecycle = lifecycle;
        this.reset = reset;
    }

    /** True while the client owes the next packet of the exchange. */
    boolean expectsClientPacket() {
        return awaitingClient;
    }

    void start() {
        onStep(auth.start(request.user(), request.authPluginName(), request.authResponse(), seed));
    }

    /** A packet of the exchange from the client; takes ownership of it. */
    void onClientPacket(Packet packet) {
        awaitingClient = false;
        sequenceId = packet.lastSequenceId();
        byte[] bytes = new byte[packet.payload().readableBytes()];
        packet.payload().readBytes(bytes);
        packet.release();
        onStep(auth.next(bytes));
    }

    private void onStep(ClientAuthentication.Step step) {
        if (step instanceof ClientAuthentication.Send send) {
            awaitingClient = true;
            session.write(session.frame(++sequenceId, out -> out.writeBytes(send.payload())));
        } else if (step instanceof ClientAuthentication.Denied denied) {
            if (denied.error().code() == ErrorCode.ER_ACCESS_DENIED_ERROR.code()) {
                session.services().loginFailures().failed(session.remoteHost());
            }
            lifecycle.closeWith(session.frame(++sequenceId, denied.error()::write));
        } else if (step instanceof ClientAuthentication.Success success) {
            UserConfig user = success.user();
            if (!session.services().userConnections().moveFor(session.client(), user)) {
                ErrPacket limit = ErrPacket.of(
                        ErrorCode.ER_USER_LIMIT_REACHED, user.name(), "max_user_connections", user.maxConnections());
                lifecycle.closeWith(session.frame(++sequenceId, limit::write));
                return;
            }
            if (success.fastAuthMarker()) {
                session.write(
                        session.frame(++sequenceId, out -> out.writeByte(0x01).writeByte(0x03)));
            }
            reset.changedUser(success.user(), request, ++sequenceId);
        }
    }
}
