package io.shardgate.router.frontend;

import io.shardgate.router.config.UserConfig;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.session.StatementEffects;

/**
 * A client session as MySQL would keep it, independent of any backend connection: its user, the
 * server session state it asked for (schema, tracked variables), its explicit transaction,
 * LAST_INSERT_ID() and the previous statement's outcome. COM_RESET_CONNECTION and COM_CHANGE_USER
 * start it over. Event-loop confined.
 */
final class SessionState {
    private final SessionTransaction transaction = new SessionTransaction();
    private final MovingTablesTouched movingTablesTouched = new MovingTablesTouched();
    private final LastInsertId lastInsertId = new LastInsertId();
    private final PreviousStatement previous = new PreviousStatement();
    private UserConfig user;
    /** The server session state this client asked for. */
    private SessionVariables desired;

    SessionState(UserConfig user, String schema) {
        this.user = user;
        this.desired = SessionVariables.initial(schema);
    }

    UserConfig user() {
        return user;
    }

    SessionVariables desired() {
        return desired;
    }

    MovingTablesTouched movingTablesTouched() {
        return movingTablesTouched;
    }

    SessionTransaction transaction() {
        return transaction;
    }

    LastInsertId lastInsertId() {
        return lastInsertId;
    }

    PreviousStatement previous() {
        return previous;
    }

    /** A statement with {@code effects} succeeded. */
    void apply(StatementEffects effects) {
        desired = desired.apply(effects);
    }

    /** COM_RESET_CONNECTION ({@code user} unchanged) or COM_CHANGE_USER: the session starts over in {@code schema}. */
    void startOver(UserConfig user, String schema) {
        this.user = user;
        lastInsertId.reset();
        previous.reset();
        transaction.end();
        movingTablesTouched.transactionOver();
        desired = SessionVariables.initial(schema);
    }
}
