package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.EscapedText;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.net.PacketWriter;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.Decision;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.routing.SessionView;
import io.shardgate.router.routing.StatementRouter;
import io.shardgate.router.session.ConnectionIdCall;
import io.shardgate.router.session.KillStatement;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.ProcesslistQuery;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.rule.QueryRuleMatch;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * A client session's binary-protocol commands (COM_STMT_*) under multiplexing. The statement ids
 * the client holds are the router's: COM_STMT_PREPARE_OK is rewritten as it is relayed, and
 * COM_STMT_EXECUTE, _FETCH, _RESET and _SEND_LONG_DATA go to the borrowed connection with that
 * connection's own id — preparing the statement there first when it has not yet. Runs on the
 * session's event loop.
 */
public final class PreparedStatementCommands {
    private final SessionPort session;
    private final SessionView view;
    private final PreparedStatements statements = new PreparedStatements();
    /** SQL of the COM_STMT_PREPARE in flight, registered when its COM_STMT_PREPARE_OK passes. */
    private String pendingSql;

    private PreparedRoute pendingRoute;
    /** The router's LAST_INSERT_ID() to give the backend before the current execution, or 0. */
    private long routerLastInsertId;

    private final MoveWait moveWait;

    public PreparedStatementCommands(SessionPort session) {
        this.session = session;
        this.view = new LiveSessionView(session);
        this.moveWait = new MoveWait(session);
    }

    /**
     * COM_STMT_PREPARE: planned, then prepared on a hostgroup holding its tables; the answer is
     * relayed. A statement the rules refuse is refused now, with the reason.
     */
    public void prepare(Packet packet) {
        ByteBuf payload = packet.payload();
        String text = session.text(payload);
        if (text == null) {
            packet.release();
            session.reply(
                    1,
                    Errors.notSupported("statement text with bytes beyond ASCII in a character set Shardgate cannot"
                            + " decode (use utf8mb4, latin1 or another character set with a Java equivalent)"));
            return;
        }
        Digest digest = Digest.of(text);
        if (KillStatement.parse(digest, text) != null || ProcesslistQuery.parse(digest, text) != null) {
            // they name router sessions: prepared on a backend they would name its threads
            packet.release();
            session.reply(1, Errors.notSupported("KILL or PROCESSLIST as a prepared statement (send it as text)"));
            return;
        }
        String idRefusal = TextRefusal.of(session, digest, text);
        if (idRefusal != null) {
            packet.release();
            session.reply(1, Errors.notSupported(idRefusal));
            return;
        }
        String sql = ConnectionIdCall.forBackend(digest, text, session.connectionId());
        if (!sql.equals(text)) { // the router's session id written in, as for a text statement: digested anew
            digest = Digest.of(sql);
            ByteBuf rewritten = session.client().alloc().buffer(1 + sql.length());
            EscapedText.write(rewritten.writeByte(Command.COM_STMT_PREPARE.code()), sql, session.textCharset());
            Packet replaced = new Packet(packet.sequenceId(), rewritten);
            packet.release();
            packet = replaced;
        }
        String schema = session.desired().schema();
        PreparedRoute route = PreparedRoute.plan(session.services().routing(), digest, schema);
        String ruleError = route.rules()
                .matchQueryRules(session.user().name(), schema, route.digest().text())
                .error();
        if (ruleError != null) {
            packet.release();
            session.reply(1, new ErrPacket(QueryRuleMatch.ERROR_CODE, "42000", ruleError));
            return;
        }
        Route.Refuse refuse = route.refusal();
        if (refuse != null) {
            packet.release();
            session.reply(1, Errors.of(Decision.Refuse.of(refuse)));
            return;
        }
        BackendLease lease = lease(route.prepareHostgroup(), packet);
        if (lease != null) {
            pendingSql = sql;
            pendingRoute = route;
            // preparing changes no data: it may run again if its connection is lost unanswered
            session.run(lease, packet, Response.PREPARE, StatementEffects.NONE, false, true);
        }
    }

    /** The session's lease of {@code hostgroup}; null (the command answered) when it is not configured. */
    private BackendLease lease(int hostgroup, Packet packet) {
        BackendLease lease = session.leases().get(hostgroup);
        if (lease == null) {
            packet.release();
            session.reply(1, Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "hostgroup " + hostgroup + " is not configured"));
        }
        return lease;
    }

    /** The command in flight ended (or was answered by the router). */
    public void commandFinished() {
        pendingSql = null;
        pendingRoute = null;
    }

    /** COM_RESET_CONNECTION / COM_CHANGE_USER: the session's statements are gone. */
    public void clear() {
        statements.clear();
    }

    /** A COM_STMT_PREPARE_OK passes: register the statement and give the client the router's id. */
    public void prepareOk(BackendLease lease, ByteBuf in, int payload) {
        PooledConnection connection = lease.current();
        if (pendingSql == null || connection == null) {
            return;
        }
        int backendId = in.getIntLE(payload + 1);
        int clientId = statements.add(pendingSql, in.getUnsignedShortLE(payload + 7), pendingRoute);
        remember(connection, pendingSql, backendId);
        in.setIntLE(payload + 1, clientId);
    }

    /** COM_STMT_EXECUTE, _FETCH, _RESET, _SEND_LONG_DATA or _CLOSE; takes ownership of {@code packet}. */
    public void run(Packet packet, Command command) {
        routerLastInsertId = 0;
        ByteBuf payload = packet.payload();
        int id = payload.readableBytes() >= 5 ? payload.getIntLE(payload.readerIndex() + 1) : 0;
        PreparedStatements.Prepared statement = statements.get(id);
        if (command == Command.COM_STMT_CLOSE) {
            statements.remove(id); // no answer; connections keep their copies until evicted or reset
            packet.release();
            return;
        }
        if (statement == null) {
            packet.release();
            session.reply(
                    1, ErrPacket.of(ErrorCode.ER_UNKNOWN_STMT_HANDLER, Integer.toUnsignedString(id), command.name()));
            return;
        }
        int hostgroup = statement.hostgroup();
        if (command == Command.COM_STMT_EXECUTE && statement.route.sessionStatement() != null) {
            hostgroup = sessionStatementHostgroup(packet, statement);
            if (hostgroup < 0) {
                return; // answered
            }
            statement.lastHostgroup = hostgroup;
        } else if (command == Command.COM_STMT_EXECUTE) {
            session.statement().started(session.desired().schema(), statement.route.digest(), true);
            if (!moveWait.idle()) {
                Packet held = packet;
                if (moveWait.holds(
                        held,
                        session.desired().schema(),
                        statement.route.digest().text(),
                        null, // TODO(#20): the execution's targets, so key-routed executions run during a cleanup
                        () -> run(held, command))) {
                    return; // refused (DDL on a moving table) or waiting for a move's cutover
                }
            }
            Packet reading = packet;
            if (LastInsertId.reads(statement.route.digest())
                    && LastInsertIdCheck.waits(session, reading, () -> run(reading, command))) {
                return; // refused, or run again once the session's value is read
            }
            routerLastInsertId = routerLastInsertId(statement);
            if (routerLastInsertId < 0) {
                packet.release();
                session.reply(
                        1,
                        Errors.notSupported(
                                "LAST_INSERT_ID() inside a prepared statement other than SELECT LAST_INSERT_ID(), after a key"
                                        + " the router generated: bind the value as a parameter (getGeneratedKeys() or a"
                                        + " prepared SELECT LAST_INSERT_ID() give it)"));
                return;
            }
            packet = ExecuteTypes.bound(packet, statement);
            Packet execute = packet;
            boolean longData = statement.longDataHostgroup >= 0; // values the execution itself does not carry
            if (routerLastInsertId == 0
                    && session.cache()
                            .execute(
                                    execute,
                                    statement.route.digest(),
                                    statement.parameters,
                                    longData,
                                    () -> run(execute, command))) {
                return; // answered from the result cache, or waiting for another session's fill of it
            }
            hostgroup = executionHostgroup(packet, statement);
            if (hostgroup < 0) {
                return; // answered
            }
            statement.lastHostgroup = hostgroup;
            session.statement().routedTo(hostgroup);
        } else if (command == Command.COM_STMT_SEND_LONG_DATA) {
            if (statement.longDataHostgroup < 0) {
                statement.longDataHostgroup = statement.route.prepareHostgroup();
            }
            hostgroup = statement.longDataHostgroup;
        }
        BackendLease lease = lease(hostgroup, packet);
        if (lease == null) {
            return;
        }
        if (command == Command.COM_STMT_EXECUTE && statement.readsPreviousStatement) {
            ErrPacket refusal = PreviousStatementCheck.refusal(session, lease);
            if (refusal != null) {
                packet.release();
                session.reply(1, refusal);
                return;
            }
        }
        if (command == Command.COM_STMT_EXECUTE && !statement.route.reads()) {
            lease.writing(); // read-your-writes: the session's next text reads stay on the writer
        }
        Packet command0 = packet;
        if (command == Command.COM_STMT_RESET
                && (lease.current() == null || lease.current().statementId(statement.sql) == null)) {
            packet.release(); // nothing of it is bound on any server session this client holds
            session.reply(1, OkPacket.of(0, 0, lease.statusFlags(), 0));
            return;
        }
        // a router key the execution reads is given to its server session by the alignment (see LastInsertId)
        if (command == Command.COM_STMT_EXECUTE && LastInsertId.mayChange(statement.route.digest())) {
            lease.settingLastInsertId(); // another client session must not read the value it leaves
        }
        // an execution on a connection borrowed for it runs again if that one was dead (see
        // BackendLoss)
        boolean retryable = command == Command.COM_STMT_EXECUTE
                && statement.route.sessionStatement() == null
                && statement.route.reads()
                && lease.current() == null;
        session.withConnection(
                lease, command0, connection -> execute(lease, connection, command0, command, statement), retryable);
    }

    /**
     * The router's LAST_INSERT_ID() value when {@code statement} is a prepared {@code SELECT
     * LAST_INSERT_ID()} and the router holds one (the backend session is given it first); -1 when
     * the statement uses LAST_INSERT_ID() otherwise while the router holds one (refused: its value
     * would be the backend's); 0 when the router holds none or the statement does not use it.
     */
    private long routerLastInsertId(PreparedStatements.Prepared statement) {
        long value = session.lastInsertId().value();
        Digest digest = statement.route.digest();
        if (value == 0 || !(digest.has(Mark.LAST_INSERT_ID) || digest.has(Mark.IDENTITY_VARIABLE))) {
            return 0; // the scan runs only in sessions that inserted router-generated keys
        }
        return session.lastInsertId().column(statement.sql) != null ? value : -1;
    }

    /** Sends a command on {@code connection}, preparing the statement there first if it has not been. */
    private void execute(
            BackendLease lease,
            PooledConnection connection,
            Packet command0,
            Command command,
            PreparedStatements.Prepared statement) {
        Integer backendId = connection.statementId(statement.sql);
        if (backendId != null) {
            send(lease, connection, command0, command, statement, backendId);
            return;
        }
        runBefore(lease, Command.COM_STMT_PREPARE, statement.sql, Response.PREPARE, response -> {
            int prepared = response.getIntLE(response.readerIndex() + 5);
            remember(connection, statement.sql, prepared);
            send(lease, connection, command0, command, statement, prepared);
        });
    }

    /**
     * Runs {@code internal} with {@code text} on the lease's connection ahead of the client's
     * command: when the backend refuses it, the client gets the backend's error ({@link
     * SessionPort#fail} drops the command); otherwise {@code then} reads the framed response.
     */
    private void runBefore(
            BackendLease lease, Command internal, String text, Response expected, Consumer<ByteBuf> then) {
        lease.runInternal(
                out -> EscapedText.write(out.writeByte(internal.code()), text, session.textCharset()),
                expected,
                (response, failed) -> {
                    if (failed) {
                        session.fail(ErrPacket.read(response.skipBytes(4)));
                        return;
                    }
                    then.accept(response);
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
                statement.longDataHostgroup = -1;
                // only an execution that asks for a cursor may end after the column definitions
                Response response = ComStmtExecute.requestsCursor(packet.payload())
                        ? Response.RESULT_SET_OR_CURSOR
                        : Response.RESULT_SET;
                session.send(connection, packet, response, StatementEffects.NONE, false);
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

    /**
     * A prepared BEGIN, COMMIT, SET...: runs on the home hostgroup like its text form; the end of a
     * transaction that reached other hostgroups is sent to each of them; returns -1 then (answered).
     */
    private int sessionStatementHostgroup(Packet execute, PreparedStatements.Prepared statement) {
        BackendLease home = session.home();
        switch (statement.route.sessionStatement()) {
            case "BEGIN", "START" -> {
                String text = statement.route.digest().text();
                if (StatementRouter.startsTransaction(text)) {
                    if (StatementRouter.defersBegin(text, view)) {
                        DeferredBegin.declare(session, statement.sql, StatementRouter.readOnly(text));
                        execute.release();
                        return -1;
                    }
                    String refusal =
                            TwoPhaseRules.beginRefusal(TwoPhaseRules.mode(session), StatementRouter.readOnly(text));
                    if (refusal != null) {
                        execute.release();
                        session.reply(1, Errors.notSupported(refusal));
                        return -1;
                    }
                    List<BackendLease> open = session.leases().inTransaction(null);
                    List<Integer> openHostgroups = new java.util.ArrayList<>(open.size());
                    open.forEach(lease -> openHostgroups.add(lease.hostgroup().id()));
                    if (ImplicitCommit.needed(openHostgroups, home.hostgroup().id())) {
                        // committed everywhere, the BEGIN executes again with no transaction open
                        ImplicitCommit.run(
                                session, open, () -> run(execute, Command.COM_STMT_EXECUTE), execute::release);
                        return -1;
                    }
                    session.transaction().started(statement.sql);
                }
            }
            case "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE" -> {
                if (StatementRouter.endsUnopened(statement.route.digest().text(), view)) {
                    DeferredBegin.endUnopened(session);
                    execute.release();
                    return -1;
                }
                if (session.transaction().xid() != null) {
                    List<BackendLease> reached = session.leases().xaBranches();
                    if (XaTransactionEnd.handled(
                            session, statement.route.digest().text(), reached)) {
                        execute.release();
                        return -1;
                    }
                }
                List<BackendLease> others = session.leases().inTransaction(home);
                if (others.size() == 1 && !home.inTransaction()) {
                    return others.get(0).hostgroup().id(); // the transaction reached that hostgroup alone
                }
                if (!others.isEmpty()) {
                    execute.release();
                    if (home.inTransaction()) {
                        others.add(home);
                    }
                    new TransactionBroadcast(session, others, statement.sql).start();
                    return -1;
                }
            }
            default -> {}
        }
        return home.hostgroup().id();
    }

    /**
     * The hostgroup one execution runs on, from its bound values; -1 when the execution was
     * answered here instead (refused, or long data sent to another hostgroup).
     */
    private int executionHostgroup(Packet execute, PreparedStatements.Prepared statement) {
        PreparedRoute.Execution execution;
        try {
            execution = statement.route.execution(
                    session.services().routing(),
                    execute.payload(),
                    session.capabilities(),
                    statement.parameters,
                    session.services().keys(),
                    session.textCharset());
        } catch (RuntimeException e) {
            execute.release();
            session.reply(1, ErrPacket.of(ErrorCode.ER_MALFORMED_PACKET));
            return -1;
        }
        Targets targets = execution.targets();
        String problem = targets.error();
        // generated keys go into the SQL and the client's OK: answered here even for one target
        boolean generated = execution.values() != null && execution.values().firstGeneratedKey() != 0;
        if (problem == null && !targets.anyOne() && (targets.targets().size() != 1 || generated)) {
            if (statement.longDataHostgroup >= 0) {
                problem = "long data parameters for a statement on several hostgroups " + targets.hostgroups();
            } else {
                execute.release();
                new ScatterExecution(
                                session, statement.route.plan(), targets, execution.values(), execution.parameters())
                        .start();
                return -1;
            }
        }
        int hostgroup = problem == null ? targets.targets().get(0).hostgroup() : -1;
        if (problem == null && statement.longDataHostgroup >= 0 && statement.longDataHostgroup != hostgroup) {
            problem = "long data sent for hostgroup " + statement.longDataHostgroup + " but the execution goes to "
                    + hostgroup;
        }
        if (problem != null) {
            execute.release();
            session.reply(1, Errors.notSupported(problem));
            return -1;
        }
        return hostgroup;
    }

    /** Records a backend statement id on {@code connection}, closing one that falls out of its cache. */
    static void remember(PooledConnection connection, String sql, int backendId) {
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
