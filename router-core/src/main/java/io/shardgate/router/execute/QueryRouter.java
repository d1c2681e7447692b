package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.shardgate.protocol.codec.EscapedText;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.frontend.SessionLeases;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.lease.DiagnosticsHold;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.pool.PooledConnection;
import io.shardgate.router.routing.Decision;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.routing.SessionView;
import io.shardgate.router.routing.StatementFacts;
import io.shardgate.router.routing.StatementRouter;
import io.shardgate.router.session.ConnectionIdCall;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.DiagnosticsStatement;
import io.shardgate.router.session.KillStatement;
import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.router.session.ProcesslistQuery;
import io.shardgate.router.session.RowCountDiagnostics;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * Carries out a client's COM_QUERY: gathers its facts (digest, query rules, the result cache,
 * plan cached per shape), asks {@link StatementRouter} where it goes, and does that:
 * <ul>
 *   <li>one target: the statement is forwarded on that hostgroup's lease and its response relayed
 *       as raw bytes (the client's own packet when the plan keeps its SQL: most traffic);
 *   <li>several targets: {@link ScatterExecution} runs it on each and merges the results;
 *   <li>a session statement (SET, USE, BEGIN, COMMIT...): on the home hostgroup, and COMMIT /
 *       ROLLBACK / SAVEPOINT on every hostgroup the transaction reached;
 *   <li>a refusal: ERR with the reason, never a guess; EXPLAIN SHARDGATE and the router's
 *       LAST_INSERT_ID(): answered here.
 * </ul>
 * One instance per session, used on its event loop.
 */
public final class QueryRouter {
    private final SessionPort session;
    private final SessionView view;
    private final MoveWait moveWait;

    /** Why a statement reading {@code @@warning_count} / {@code @@error_count} among other things is refused. */
    private static final String COUNTS_ELSEWHERE = "@@warning_count or @@error_count in a statement that runs on"
            + " another backend connection than the one holding the previous statement's diagnostics, on several"
            + " shards, or after a statement whose diagnostics no server session holds";

    public QueryRouter(SessionPort session) {
        this.session = session;
        this.view = new LiveSessionView(session);
        this.moveWait = new MoveWait(session);
    }

    /**
     * Routes {@code sql}, the text of {@code packet} (a COM_QUERY); takes ownership of the packet.
     * The client's text is digested once; every later step reads the digest (its text, literals and
     * {@link io.shardgate.sharding.digest.Mark marks}), the plan cached by it and the facts made of
     * it. The few statements the router answers or rewrites itself are looked at closer only when
     * the digest's first word or marks say they may be one; a rewritten statement is digested anew.
     */
    public void route(Packet packet, String sql) {
        Digest digest = Digest.of(sql);
        if (DiagnosticsStatement.is(digest, sql)) {
            diagnostics(packet, digest, sql);
            return;
        }
        Packet reading = packet;
        String text = sql;
        if (LastInsertId.reads(digest) && LastInsertIdCheck.waits(session, reading, () -> route(reading, text))) {
            return; // refused, or routed again once the session's value is read
        }
        String idRefusal = TextRefusal.of(session, digest, sql);
        if (idRefusal != null) {
            packet.release();
            session.reply(1, Errors.notSupported(idRefusal));
            return;
        }
        // the router's session id, as the handshake, KILL and PROCESSLIST know it
        String withId = ConnectionIdCall.substitute(digest, sql, session.connectionId());
        if (!withId.equals(sql)) {
            if (routedToSessions(packet, Digest.of(withId), withId, sql)) {
                return;
            }
            // for a backend, typed as the server types CONNECTION_ID()
            withId = ConnectionIdCall.forBackend(digest, sql, session.connectionId());
            digest = Digest.of(withId);
        } else if (routedToSessions(packet, digest, withId, sql)) {
            return;
        }
        Decision local = StatementRouter.answeredLocally(digest, sql, view);
        if (local != null) {
            packet.release();
            answer(local);
            return;
        }
        String substituted = session.lastInsertId().substitute(digest, withId);
        if (!substituted.equals(sql)) { // the router's values written in: route by them
            ByteBuf payload = session.client().alloc().buffer(1 + ByteBufUtil.utf8Bytes(substituted));
            EscapedText.write(payload.writeByte(Command.COM_QUERY.code()), substituted, session.textCharset());
            Packet rewritten = new Packet(packet.sequenceId(), payload);
            packet.release();
            packet = rewritten;
            if (!substituted.equals(withId)) {
                digest = Digest.of(substituted);
            }
            sql = substituted;
        }
        RuleSnapshot rules = session.services().routing().current();
        String schema = session.desired().schema();
        session.statement().started(schema, digest, false);
        QueryRuleMatch rule = rules.matchQueryRules(session.user().name(), schema, digest.text());
        if (!moveWait.idle()) {
            Packet held = packet;
            String routed = sql;
            Digest heldDigest = digest;
            MoveWait.Route route = new MoveWait.Route() {
                @Override
                public Plan plan() {
                    return StatementRouter.plans(rule)
                            ? session.services().routing().plan(heldDigest, schema, rules)
                            : null;
                }

                @Override
                public Targets targets(Plan plan) {
                    return plan.targets(heldDigest, rules);
                }
            };
            if (moveWait.holds(held, schema, digest.text(), route, () -> route(held, routed))) {
                return;
            }
        }
        Packet queried = packet;
        String queriedSql = sql;
        // a statement a query rule refuses never reaches the cache
        // (enabled() first: the rerun lambda is not built per statement when the cache is off)
        if (rule.error() == null
                && session.cache().enabled()
                && session.cache().query(packet, digest, rule, rules, () -> route(queried, queriedSql))) {
            session.leases().diagnosticsUnknown(); // (a wait for another session's fill routes again)
            return; // answered from the result cache, or waiting for another session's fill of it
        }
        Plan plan = StatementRouter.plans(rule) ? session.services().routing().plan(digest, schema, rules) : null;
        StatementFacts facts = StatementFacts.of(digest, rule, plan);
        Decision decision =
                StatementRouter.decide(facts, rules, view, session.services().keys());
        carryOut(packet, facts, decision);
    }

    /**
     * KILL and the process list name router sessions, not backend threads: answered here (true,
     * {@code packet} released); false for any other statement. A KILL sent on would end whatever
     * backend thread has that number, a pooled connection of another session perhaps.
     */
    private boolean routedToSessions(Packet packet, Digest digest, String sql, String original) {
        KillStatement kill = KillStatement.parse(digest, sql);
        if (kill != null) {
            packet.release();
            KillCommand.run(session, kill);
            return true;
        }
        ProcesslistQuery processes = ProcesslistQuery.parse(digest, sql);
        if (processes != null && processes.refusal() == null && processes.readsBackendColumns()) {
            ownBackendRow(packet, digest, original);
            return true;
        }
        if (processes != null) {
            packet.release();
            ProcesslistCommand.run(session, processes);
            return true;
        }
        return false;
    }

    /**
     * A SELECT of a server thread's own columns (MEMORY_USED...) from information_schema.PROCESSLIST:
     * the client's text as it is, on the backend connection the session holds, or refused (see
     * {@link ProcesslistQuery#backendColumnsRefusal}).
     */
    private void ownBackendRow(Packet packet, Digest digest, String sql) {
        BackendLease home = session.home();
        String refusal = ProcesslistQuery.backendColumnsRefusal(sql, home.holdsSessionState());
        if (refusal != null) {
            packet.release();
            session.reply(1, Errors.notSupported(refusal));
            return;
        }
        session.statement().started(session.desired().schema(), digest, false);
        session.statement().routedTo(home.hostgroup().id());
        session.run(home, packet, Response.RESULT_SET, StatementEffects.NONE, false, true);
    }

    /** Does what {@code decision} says with the client's {@code packet} (released or sent on). */
    private void carryOut(Packet packet, StatementFacts facts, Decision decision) {
        String refusal = autocommitOffRefusal(decision);
        if (refusal != null) {
            packet.release();
            session.reply(1, Errors.notSupported(refusal));
            return;
        }
        if (committedElsewhereFirst(packet, facts, decision)) {
            return;
        }
        dispatch(packet, facts, decision);
    }

    /**
     * A statement that commits the open transaction implicitly (see {@link ImplicitCommit}) while
     * the transaction holds hostgroups it does not run on: COMMIT there first, then the statement
     * (true; in a two_phase transaction refused instead). False for everything else: the common
     * case, decided without allocating.
     */
    private boolean committedElsewhereFirst(Packet packet, StatementFacts facts, Decision decision) {
        int status = session.leases().statusFlags();
        if ((session.transaction().start() == null
                        && (status & io.shardgate.protocol.type.ServerStatus.SERVER_STATUS_AUTOCOMMIT) != 0)
                || !ImplicitCommit.causedBy(facts.digest(), status)) {
            return false;
        }
        List<Integer> runsOn = new ArrayList<>();
        if (decision instanceof Decision.Single single) {
            runsOn.add(single.hostgroup());
        } else if (decision instanceof Decision.Scatter scatter) {
            scatter.targets().targets().forEach(t -> runsOn.add(t.hostgroup()));
        } else if (decision instanceof Decision.OnHome onHome && !onHome.beginsTransaction()) {
            runsOn.add(session.home().hostgroup().id());
        } else if (decision instanceof Decision.LockEverywhere lock) {
            runsOn.addAll(lock.statements().keySet());
        } else {
            return false;
        }
        List<BackendLease> open = session.leases().inTransaction(null);
        if (open.stream().allMatch(lease -> runsOn.contains(lease.hostgroup().id()))) {
            return false; // each server commits its own part as it runs the statement
        }
        if (session.transaction().xid() != null) {
            packet.release();
            session.reply(
                    1,
                    Errors.notSupported("a statement that commits the transaction implicitly (DDL, SET"
                            + " autocommit = 1...) inside a two_phase transaction: COMMIT first"));
            return true;
        }
        ImplicitCommit.run(session, open, () -> dispatch(packet, facts, decision), packet::release);
        return true;
    }

    private void dispatch(Packet packet, StatementFacts facts, Decision decision) {
        if (decision instanceof Decision.Single single) {
            single(packet, single, facts);
        } else if (decision instanceof Decision.Scatter scatter) {
            packet.release();
            scatter(scatter, facts.digest());
        } else if (decision instanceof Decision.Refuse refuse) {
            packet.release();
            session.reply(1, Errors.of(refuse));
        } else {
            sessionStatement(packet, facts, decision);
        }
    }

    /** See {@link TwoPhaseRules#autocommitOffRefusal}; null for reads and outside two_phase schemas. */
    private String autocommitOffRefusal(Decision decision) {
        if ((session.leases().statusFlags() & io.shardgate.protocol.type.ServerStatus.SERVER_STATUS_AUTOCOMMIT) != 0
                || !TwoPhaseRules.twoPhase(session)) {
            return null; // the common case, allocation-free
        }
        List<Integer> targets = new ArrayList<>();
        if (decision instanceof Decision.Single single && !single.reads()) {
            targets.add(single.hostgroup());
        } else if (decision instanceof Decision.Scatter scatter && scatter.writes()) {
            scatter.targets().targets().forEach(t -> targets.add(t.hostgroup()));
        } else {
            return null;
        }
        int openElsewhere = 0;
        for (BackendLease lease : session.leases().inTransaction(null)) {
            if (!targets.contains(lease.hostgroup().id())) {
                openElsewhere++;
            }
        }
        return TwoPhaseRules.autocommitOffRefusal(
                TwoPhaseRules.mode(session),
                session.leases().statusFlags(),
                session.transaction().start() != null,
                targets.size(),
                openElsewhere);
    }

    /** EXPLAIN SHARDGATE, or the router's LAST_INSERT_ID(): a small result set made here. */
    private void answer(Decision local) {
        if (local instanceof Decision.Explain explain) {
            explain(explain.statement());
        } else if (local instanceof Decision.ValueRow row) {
            session.previous().answered(1, -1); // what a one-row SELECT leaves
            session.replyRows(List.of(TextResultSet.Column.integer(row.column())), List.of(List.of(row.value())));
        } else {
            throw new IllegalStateException("not a local answer: " + local);
        }
    }

    /** Runs the statement on one hostgroup: the client's packet, or the SQL the plan renders for it. */
    private void single(Packet packet, Decision.Single decision, StatementFacts facts) {
        int hostgroup = decision.hostgroup();
        BackendLease lease = ReadWriteSplit.lease(
                session, hostgroup, decision.kind(), decision.role(), facts.effects(), facts.insert());
        if (lease == null) {
            packet.release();
            session.reply(1, Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "hostgroup " + hostgroup + " is not configured"));
            return;
        }
        if (facts.effects().readsPreviousStatement()) {
            ErrPacket refusal = PreviousStatementCheck.refusal(session, lease);
            if (refusal != null) {
                packet.release();
                session.reply(1, refusal);
                return;
            }
        }
        if (refusedCounts(packet, facts.digest(), lease)) {
            return;
        }
        if (decision.multiplexOff()) {
            lease.pin(EnumSet.of(PinReason.QUERY_RULE));
        }
        session.statement().routedTo(hostgroup);
        Packet send = packet;
        if (decision.rewritten() != null) {
            String sql = decision.rewritten().sql();
            ByteBuf payload = session.client().alloc().buffer(1 + sql.length());
            EscapedText.write(payload.writeByte(Command.COM_QUERY.code()), sql, session.textCharset());
            send = new Packet(packet.sequenceId(), payload);
            packet.release();
        }
        session.diagnosticsEffect(diagnosticsEffect(facts.digest()));
        if (LastInsertId.mayChange(facts.digest())) {
            lease.settingLastInsertId(); // another client session must not read the value it leaves
        }
        session.run(lease, send, Response.RESULT_SET, facts.effects(), facts.insert(), decision.reads());
    }

    /**
     * SHOW WARNINGS, SHOW ERRORS, @@warning_count, GET DIAGNOSTICS: on the connection that holds
     * the previous statement's diagnostics; when it left none, on a connection whose diagnostics
     * area {@link DiagnosticsHold#CLEAR} emptied first (the session's older warnings may be in it).
     */
    private void diagnostics(Packet packet, Digest digest, String sql) {
        SessionLeases leases = session.leases();
        StatementEffects effects = StatementScanner.scan(digest); // GET DIAGNOSTICS sets user variables
        BackendLease holder = leases.diagnosticsHolder();
        if (digest.startsWith("GET")) {
            session.previous().unchanged(); // GET DIAGNOSTICS leaves ROW_COUNT() as it was
            RowCountDiagnostics rowCount = digest.has(Mark.ROW_COUNT) ? RowCountDiagnostics.parse(sql) : null;
            BackendLease lease = holder != null ? holder : session.home();
            if (rowCount != null && !(holder != null && session.previous().serverKnows(holder, true, holder.epoch()))) {
                rowCountDiagnostics(packet, rowCount, lease, holder == null, effects);
                return;
            }
        }
        if (holder != null) {
            session.diagnosticsEffect(DiagnosticsEffect.READS);
            session.run(holder, packet, Response.RESULT_SET, effects, false);
            return;
        }
        if (leases.diagnosticsLost()) {
            packet.release();
            session.reply(
                    1,
                    Errors.notSupported("SHOW WARNINGS/ERRORS, @@warning_count or GET DIAGNOSTICS after a statement"
                            + " that ran on several shards, that the router answered itself or whose connection"
                            + " was lost (statements since then that raised nothing and used no table keep them,"
                            + " as may statements the router cannot classify)"));
            return;
        }
        BackendLease home = session.home();
        if (!effects.pins().isEmpty()) {
            home.pin(effects.pins());
        }
        session.diagnosticsEffect(DiagnosticsEffect.READS);
        session.withConnection(
                home,
                packet,
                connection -> home.runInternal(
                        out -> out.writeByte(Command.COM_QUERY.code())
                                .writeCharSequence(DiagnosticsHold.CLEAR, StandardCharsets.US_ASCII),
                        Response.RESULT_SET,
                        (response, failed) -> {
                            if (failed) {
                                session.fail(ErrPacket.read(response.skipBytes(4)));
                            } else {
                                session.send(connection, packet, Response.RESULT_SET, effects, false);
                            }
                        }),
                false);
    }

    /**
     * GET DIAGNOSTICS reading ROW_COUNT where the server's value is not the session's (see {@link
     * RowCountDiagnostics}): the router's value assigned, the other items read on {@code lease}
     * (after {@link DiagnosticsHold#CLEAR} when it held none of the session's diagnostics); refused
     * when the router does not know the value, or the other items' diagnostics area is lost.
     */
    private void rowCountDiagnostics(
            Packet packet, RowCountDiagnostics statement, BackendLease lease, boolean clear, StatementEffects effects) {
        long rowCount = session.previous().rowCount();
        String rest = statement.rest(); // the items read in the diagnostics area, if any
        if (rowCount == PreviousStatement.UNKNOWN
                || (rest != null && clear && session.leases().diagnosticsLost())) {
            packet.release();
            session.reply(
                    1,
                    Errors.notSupported("GET DIAGNOSTICS ... ROW_COUNT after a statement that ran on several shards"
                            + " or sent several results, on another pooled connection (its value is not this"
                            + " session's there; a transaction or multiplexing: false keep the session on one"
                            + " connection)"));
            return;
        }
        List<String> before = new ArrayList<>();
        String sent = statement.assignment(rowCount);
        if (rest != null) {
            if (clear) {
                before.add(DiagnosticsHold.CLEAR); // the connection may hold another session's warnings
            }
            before.add(sent);
            sent = rest;
        }
        ByteBuf payload = session.client().alloc().buffer(1 + sent.length());
        EscapedText.write(payload.writeByte(Command.COM_QUERY.code()), sent, session.textCharset());
        Packet rewritten = new Packet(packet.sequenceId(), payload);
        packet.release();
        if (!effects.pins().isEmpty()) {
            lease.pin(effects.pins());
        }
        session.diagnosticsEffect(DiagnosticsEffect.READS);
        session.withConnection(
                lease, rewritten, connection -> runThenSend(lease, connection, before, 0, rewritten, effects), false);
    }

    /** Runs the router's {@code statements} from {@code next} on, then sends the client's {@code packet}. */
    private void runThenSend(
            BackendLease lease,
            PooledConnection connection,
            List<String> statements,
            int next,
            Packet packet,
            StatementEffects effects) {
        if (next == statements.size()) {
            session.send(connection, packet, Response.RESULT_SET, effects, false);
            return;
        }
        String sql = statements.get(next);
        lease.runInternal(
                out -> EscapedText.write(out.writeByte(Command.COM_QUERY.code()), sql, session.textCharset()),
                Response.RESULT_SET,
                (response, failed) -> {
                    if (failed) {
                        session.fail(ErrPacket.read(response.skipBytes(4)));
                    } else {
                        runThenSend(lease, connection, statements, next + 1, packet, effects);
                    }
                });
    }

    /**
     * What the statement of {@code digest} does to the diagnostics area, as {@link
     * io.shardgate.router.frontend.SessionLeases} needs it at its end: only while earlier warnings are
     * held by a connection or unknown does it matter, so the common statement skips the scan.
     */
    private DiagnosticsEffect diagnosticsEffect(Digest digest) {
        SessionLeases leases = session.leases();
        return leases.diagnosticsLost() || leases.diagnosticsHolder() != null
                ? DiagnosticsEffect.of(digest)
                : DiagnosticsEffect.UNSURE;
    }

    /**
     * Refuses (true, {@code packet} released) a statement reading {@code @@warning_count} or
     * {@code @@error_count} that would run on {@code lease} while the previous statement's counts are
     * not readable there.
     */
    private boolean refusedCounts(Packet packet, Digest digest, BackendLease lease) {
        if (!digest.has(Mark.DIAGNOSTICS_COUNT) || session.leases().diagnosticsReadableOn(lease)) {
            return false;
        }
        packet.release();
        session.reply(1, Errors.notSupported(COUNTS_ELSEWHERE));
        return true;
    }

    /** Runs the statement on several hostgroups and merges the results. */
    private void scatter(Decision.Scatter decision, Digest digest) {
        if (digest.has(Mark.DIAGNOSTICS_COUNT)) {
            session.reply(1, Errors.notSupported(COUNTS_ELSEWHERE)); // each shard would read its own
            return;
        }
        session.leases().diagnosticsUnknown(); // each shard holds its part of the warnings
        if (decision.writes()) {
            decision.targets().targets().forEach(t -> {
                BackendLease lease = session.leases().get(t.hostgroup());
                if (lease != null) {
                    lease.writing();
                }
            });
        }
        new ScatterExecution(session, decision.plan(), decision.targets(), decision.values()).start();
    }

    /**
     * SET, USE, LOCK..., BEGIN, COMMIT...: on the home hostgroup, a transaction's end where it
     * reached, or answered here when no backend has anything to do.
     */
    private void sessionStatement(Packet packet, StatementFacts facts, Decision decision) {
        BackendLease home = session.home();
        Digest digest = facts.digest();
        if (session.transaction().xid() != null
                && (decision instanceof Decision.EndTransaction || decision instanceof Decision.EndEverywhere)
                && XaTransactionEnd.handled(
                        session, digest.text(), session.leases().xaBranches())) {
            packet.release(); // the branches, not the status flags, say where it runs (see XaCommit#BRANCH)
            session.leases().diagnosticsUnknown();
            home.writing();
            return;
        }
        if (decision instanceof Decision.OnHome onHome) {
            String refusal = onHome.beginsTransaction()
                    ? TwoPhaseRules.beginRefusal(TwoPhaseRules.mode(session), StatementRouter.readOnly(digest.text()))
                    : null;
            if (refusal != null) {
                packet.release();
                session.reply(1, Errors.notSupported(refusal));
                return;
            }
            if (onHome.beginsTransaction()) {
                List<BackendLease> open = session.leases().inTransaction(null);
                List<Integer> openHostgroups = new ArrayList<>(open.size());
                open.forEach(lease -> openHostgroups.add(lease.hostgroup().id()));
                if (ImplicitCommit.needed(openHostgroups, home.hostgroup().id())) {
                    ImplicitCommit.run(session, open, () -> begin(packet, facts), packet::release);
                    return;
                }
            }
            if (refusedCounts(packet, digest, home)) {
                return;
            }
            // run as the client's statement (marking the transaction first would prepend a
            // second BEGIN as the lease's setup step)
            session.diagnosticsEffect(diagnosticsEffect(digest));
            session.run(home, packet, Response.RESULT_SET, facts.effects(), false);
            if (onHome.beginsTransaction()) {
                session.transaction().started(digest.sql());
            }
        } else if (decision instanceof Decision.LockEverywhere lock) {
            packet.release();
            new LockBroadcast(session, lock.statements()).start();
        } else if (decision instanceof Decision.UnlockEverywhere unlock) {
            packet.release();
            java.util.Map<Integer, String> unlocks = new java.util.TreeMap<>();
            unlock.hostgroups().forEach(hostgroup -> unlocks.put(hostgroup, "UNLOCK TABLES"));
            new LockBroadcast(session, unlocks).start();
        } else if (decision instanceof Decision.DeclareTransaction declare) {
            DeferredBegin.declare(session, digest.sql(), declare.readOnly());
            packet.release();
        } else if (decision instanceof Decision.EndUnopened) {
            DeferredBegin.endUnopened(session);
            packet.release(); // no backend began it: nothing to end there
        } else if (decision instanceof Decision.EndTransaction end) {
            session.transaction().savepointStatement(digest.text());
            BackendLease on = session.leases().find(end.hostgroup());
            home.writing(); // read-your-writes counts from the end of the transaction
            on.writing();
            session.diagnosticsEffect(diagnosticsEffect(digest));
            session.run(on, packet, Response.RESULT_SET, facts.effects(), false);
        } else if (decision instanceof Decision.EndEverywhere end) {
            session.transaction().savepointStatement(digest.text());
            packet.release();
            session.leases().diagnosticsUnknown(); // several server sessions end the transaction
            List<BackendLease> reached = new ArrayList<>(end.hostgroups().size());
            for (int hostgroup : end.hostgroups()) {
                reached.add(session.leases().find(hostgroup));
            }
            home.writing();
            reached.forEach(BackendLease::writing);
            new TransactionBroadcast(session, reached, digest.sql()).start();
        } else {
            throw new IllegalStateException("not a session statement: " + decision);
        }
    }

    /** Runs the client's BEGIN on the home hostgroup: the session's transaction starts there. */
    private void begin(Packet packet, StatementFacts facts) {
        session.run(session.home(), packet, Response.RESULT_SET, facts.effects(), false);
        session.transaction().started(facts.digest().sql());
    }

    /** {@code EXPLAIN SHARDGATE <statement>}: the plan, its targets and the SQL each receives. */
    private void explain(String sql) {
        RuleSnapshot rules = session.services().routing().current();
        String schema = session.desired().schema();
        Digest digest = Digest.of(sql);
        Plan plan = session.services().routing().plan(digest, schema, rules);
        QueryRuleMatch rule = rules.matchQueryRules(session.user().name(), schema, digest.text());
        session.replyRows(
                List.of(
                        TextResultSet.Column.text("step"),
                        TextResultSet.Column.integer("hostgroup"),
                        TextResultSet.Column.text("detail")),
                new ExplainRows(plan, rule, digest, rules, session.services().keys()).rows());
    }
}
