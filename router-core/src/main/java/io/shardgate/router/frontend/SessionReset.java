package io.shardgate.router.frontend;

import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComChangeUser;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.execute.PreparedStatementCommands;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.login.ClientAuthentication;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;

/**
 * COM_RESET_CONNECTION and COM_CHANGE_USER: the client session starts over (as the same or another
 * user), and so must every server session that holds any of its state — prepared statements,
 * variables, pins, its transaction. While a CHANGE_USER authentication is under way ({@link
 * ChangeUserExchange}) the session queues other commands. Event-loop confined.
 */
final class SessionReset {
    private final SessionPort session;
    private final SessionLifecycle lifecycle;
    private final SessionState state;
    private final PreparedStatementCommands prepared;
    private final byte[] seed;
    private ChangeUserExchange changeUser;

    SessionReset(
            SessionPort session,
            SessionLifecycle lifecycle,
            SessionState state,
            PreparedStatementCommands prepared,
            byte[] seed) {
        this.session = session;
        this.lifecycle = lifecycle;
        this.state = state;
        this.prepared = prepared;
        this.seed = seed;
    }

    /** True from COM_CHANGE_USER until its answer: other commands wait. */
    boolean changingUser() {
        return changeUser != null;
    }

    /** True while the client owes the next packet of the CHANGE_USER exchange. */
    boolean expectsClientPacket() {
        return changeUser != null && changeUser.expectsClientPacket();
    }

    /** A packet of the CHANGE_USER exchange from the client; takes ownership of it. */
    void onClientPacket(Packet packet) {
        changeUser.onClientPacket(packet);
    }

    /** The session closes: a CHANGE_USER under way is dropped. */
    void abandon() {
        changeUser = null;
    }

    /** COM_RESET_CONNECTION; takes ownership of {@code packet}. */
    void resetConnection(Packet packet) {
        session.leases().clearStickyPins();
        session.leases().diagnosticsStartOver();
        prepared.clear();
        state.startOver(state.user(), state.desired().schema());
        BackendLease home = session.home();
        for (BackendLease other : session.leases().all()) {
            if (other != home) {
                other.discard(); // its server session (variables, transaction) is the old one
            }
        }
        if (home.current() == null) {
            // nothing of this session lives in a server session: a fresh state is just a new borrow
            packet.release();
            session.reply(1, OkPacket.of(0, 0, session.leases().statusFlags(), 0));
            return;
        }
        PooledConnection c = home.current();
        c.state(SessionVariables.initial(c.state().schema()));
        c.forgetStatements();
        c.lastInsertId(0); // COM_RESET_CONNECTION sets it to 0
        session.diagnosticsEffect(DiagnosticsEffect.CLEARS); // the server session starts over
        session.run(home, packet, Response.SINGLE, StatementEffects.NONE, false);
    }

    /** COM_CHANGE_USER; takes ownership of {@code packet}. */
    void changeUser(Packet packet) {
        ComChangeUser request;
        try {
            request = ComChangeUser.read(packet.payload(), session.capabilities());
        } catch (RuntimeException e) {
            session.reply(1, ErrPacket.of(ErrorCode.ER_MALFORMED_PACKET));
            return;
        } finally {
            packet.release();
        }
        FrontendServices services = session.services();
        ClientAuthentication auth = new ClientAuthentication(
                services.users(),
                services.rsaKeys(),
                services.rsaPublicKeyPem(),
                session.client().pipeline().get("tls") != null,
                session.remoteHost());
        changeUser = new ChangeUserExchange(request, auth, seed, session, lifecycle, this);
        changeUser.start();
    }

    /** COM_CHANGE_USER authenticated {@code newUser}: the session starts over as that user. */
    void changedUser(UserConfig newUser, ComChangeUser request, int sequenceId) {
        prepared.clear();
        String schema =
                request.schema() != null && !request.schema().isEmpty() ? request.schema() : newUser.defaultSchema();
        session.leases().clearStickyPins();
        session.leases().diagnosticsStartOver();
        Capabilities capabilities = session.capabilities();
        session.leases()
                .kind(new ConnectionKind(
                        capabilities.flags() & BackendConnector.RESULT_FORMAT,
                        capabilities.mariaDbFlags(),
                        request.characterSet(),
                        schema));
        state.startOver(newUser, schema);
        // a held connection carries the old user's session (and maybe its transaction): close it
        session.leases().discard();
        session.home().acquire(state.desired(), (connection, error) -> {
            changeUser = null;
            if (error != null) {
                lifecycle.closeWith(session.frame(sequenceId, error::write));
                return;
            }
            session.leases().releaseIfFree();
            session.reply(sequenceId, OkPacket.of(0, 0, session.leases().statusFlags(), 0));
            lifecycle.drain();
        });
    }
}
