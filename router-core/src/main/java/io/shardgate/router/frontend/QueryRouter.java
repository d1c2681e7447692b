package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.StatementEffects;
import io.shardgate.router.session.StatementScanner;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.RenderedSql;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.ShardSql;
import io.shardgate.sharding.plan.StatementKind;
import io.shardgate.sharding.plan.Target;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.Role;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.TableRule;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Routes a client's COM_QUERY: digest, query rules, plan (cached per shape), then one of
 * <ul>
 *   <li>one target: the statement is forwarded on that hostgroup's lease and its response relayed
 *       as raw bytes (the client's own packet when the plan keeps its SQL: most traffic);
 *   <li>several targets: {@link ScatterExecution} runs it on each and merges the results;
 *   <li>a session statement (SET, USE, BEGIN, COMMIT...): on the home hostgroup, and COMMIT /
 *       ROLLBACK / SAVEPOINT on every hostgroup the transaction reached;
 *   <li>a refusal: ERR with the planner's reason, never a guess.
 * </ul>
 * One instance per session, used on its event loop.
 */
final class QueryRouter {
    private static final Pattern EXPLAIN =
            Pattern.compile("^\\s*EXPLAIN\\s+SHARDGATE\\s+(.+)$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    private final FrontendSession session;

    QueryRouter(FrontendSession session) {
        this.session = session;
    }

    /** Routes {@code sql}, the text of {@code packet} (a COM_QUERY); takes ownership of the packet. */
    void route(Packet packet, String sql) {
        if (startsWithExplain(sql)) { // the regex (and its Matcher) only for statements that may be one
            Matcher explain = EXPLAIN.matcher(sql);
            if (explain.matches()) {
                packet.release();
                explain(explain.group(1));
                return;
            }
        }
        String lastInsertIdColumn = session.lastInsertId().column(sql);
        if (lastInsertIdColumn != null) {
            packet.release();
            session.replyRows(
                    List.of(TextResultSet.Column.integer(lastInsertIdColumn)),
                    List.of(List.of(session.lastInsertId().value())));
            return;
        }
        String substituted = session.lastInsertId().substitute(sql);
        if (!substituted.equals(sql)) { // the router's LAST_INSERT_ID() written in: route by the value
            ByteBuf payload = session.client().alloc().buffer(1 + ByteBufUtil.utf8Bytes(substituted));
            payload.writeByte(Command.COM_QUERY.code()).writeCharSequence(substituted, StandardCharsets.UTF_8);
            Packet rewritten = new Packet(packet.sequenceId(), payload);
            packet.release();
            packet = rewritten;
            sql = substituted;
        }
        RuleSnapshot rules = session.services().routing().current();
        String schema = session.desired().schema();
        Digest digest = Digest.of(sql);
        session.statementStarted(schema, digest, false);
        QueryRuleMatch rule = rules.matchQueryRules(session.user().name(), schema, digest.text());
        if (rule.error() != null) {
            packet.release();
            session.reply(1, new ErrPacket(QueryRuleMatch.ERROR_CODE, "42000", rule.error()));
            return;
        }
        Packet queried = packet;
        String queriedSql = sql;
        if (session.cache().query(packet, digest, rule, rules, () -> route(queried, queriedSql))) {
            return; // answered from the result cache, or waiting for another session's fill of it
        }
        StatementEffects effects = StatementScanner.scan(sql);
        boolean insert = isInsert(sql);
        if (rule.destinationHostgroup() != null) {
            single(packet, rule.destinationHostgroup(), null, effects, insert, rule, null, rule.role());
            return;
        }
        Plan plan = session.services().routing().plan(digest, schema, rules);
        Route route = plan.route();
        Role role = rule.role() != null ? rule.role() : plan.role();
        if (route instanceof Route.Refuse refuse) {
            if (passesThrough(digest, rules, schema)) {
                single(packet, rules.homeOf(schema), null, effects, insert, rule, plan.kind(), role);
            } else {
                packet.release();
                session.reply(1, refusal(refuse));
            }
            return;
        }
        if (route instanceof Route.Session statement) {
            sessionStatement(packet, statement.statement(), digest, effects);
            return;
        }
        // Values are built only when something reads them: a route fixed at planning (a table on one
        // hostgroup, most traffic) forwards the client's packet with no per-statement objects
        Values values = null;
        Targets targets;
        if (route instanceof Route.SplitInsert split) {
            values = split.withGeneratedKeys(
                    Values.of(digest), session.services().keys());
            targets = plan.targets(values, rules);
        } else {
            targets = plan.targets(digest, rules);
        }
        if (targets.error() != null) {
            packet.release();
            session.reply(1, Errors.notSupported(targets.error()));
            return;
        }
        List<Target> list = targets.targets();
        // generated keys: the client's OK must carry the first one, so even one target is answered here
        if ((targets.anyOne() || list.size() == 1) && (values == null || values.firstGeneratedKey() == 0)) {
            Target target = targets.anyOne() ? pickOne(list) : list.get(0);
            RenderedSql rewritten = plan.sql() instanceof ShardSql.Verbatim
                    ? null
                    : plan.sql(targets, target, values != null ? values : Values.of(digest));
            single(packet, target.hostgroup(), rewritten, effects, insert, rule, plan.kind(), role);
            return;
        }
        if (values == null) {
            values = Values.of(digest);
        }
        packet.release();
        String refusal = ScatterExecution.refusal(effects);
        if (refusal != null) {
            session.reply(1, Errors.notSupported(refusal));
            return;
        }
        if (plan.kind() != StatementKind.SELECT) {
            targets.targets().forEach(t -> {
                BackendLease lease = session.leases().get(t.hostgroup());
                if (lease != null) {
                    lease.writing();
                }
            });
        }
        new ScatterExecution(session, plan, targets, values).start();
    }

    /**
     * Statements the planner refuses for lack of sharding support (CALL, LOAD DATA, EXPLAIN,
     * multi-statements...) still run unchanged where no sharding can be involved: every database
     * the session is in or the text names lives whole on one hostgroup (a plain proxy setup).
     */
    static boolean passesThrough(Digest digest, RuleSnapshot rules, String schema) {
        int home = rules.homeOf(schema);
        if (!wholeOn(rules.schema(schema), home)) {
            return false;
        }
        String text = digest.text().toLowerCase(Locale.ROOT);
        for (SchemaRule listed : rules.schemas().values()) {
            if (text.contains(listed.name().toLowerCase(Locale.ROOT)) && !wholeOn(listed, home)) {
                return false;
            }
        }
        return true;
    }

    private static boolean wholeOn(SchemaRule schema, int hostgroup) {
        if (schema == null) {
            return true;
        }
        if (schema.defaultHostgroup() != hostgroup) {
            return false;
        }
        for (TableRule table : schema.tables().values()) {
            if (!table.strategy().hostgroups().equals(List.of(hostgroup))) {
                return false;
            }
        }
        return true;
    }

    static ErrPacket refusal(Route.Refuse refuse) {
        ErrorCode code = refuse.code();
        return code == ErrorCode.ER_NOT_SUPPORTED_YET
                ? Errors.notSupported(refuse.reason())
                : Errors.of(code, refuse.reason());
    }

    /** A read any of several copies can answer: one the session already holds, else the first. */
    private Target pickOne(List<Target> targets) {
        for (Target t : targets) {
            BackendLease lease = session.leases().find(t.hostgroup());
            if (lease != null && lease.current() != null) {
                return t;
            }
        }
        return targets.get(0);
    }

    /** Runs the statement on one hostgroup; {@code rewritten} null: the client's packet as it is. */
    private void single(
            Packet packet,
            int hostgroup,
            RenderedSql rewritten,
            StatementEffects effects,
            boolean insert,
            QueryRuleMatch rule,
            StatementKind kind,
            Role role) {
        BackendLease lease = ReadWriteSplit.lease(session, hostgroup, kind, role, effects, insert);
        if (lease == null) {
            packet.release();
            session.reply(1, Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "hostgroup " + hostgroup + " is not configured"));
            return;
        }
        if (Boolean.FALSE.equals(rule.multiplex())) {
            lease.pin(EnumSet.of(PinReason.QUERY_RULE));
        }
        session.statementRoutedTo(hostgroup);
        Packet send = packet;
        if (rewritten != null) {
            ByteBuf payload =
                    session.client().alloc().buffer(1 + rewritten.sql().length());
            payload.writeByte(Command.COM_QUERY.code()).writeCharSequence(rewritten.sql(), StandardCharsets.UTF_8);
            send = new Packet(packet.sequenceId(), payload);
            packet.release();
        }
        boolean read = (kind == StatementKind.SELECT || kind == StatementKind.SHOW) && !insert;
        session.run(lease, send, Response.RESULT_SET, effects, insert, read);
    }

    /**
     * SET, USE, LOCK... run on the home hostgroup (tracked variables reach other hostgroups by
     * alignment when they are used); a transaction's end (COMMIT, ROLLBACK) and savepoints go to
     * every hostgroup it reached.
     */
    private void sessionStatement(Packet packet, String statement, Digest digest, StatementEffects effects) {
        BackendLease home = session.home();
        switch (statement) {
            case "BEGIN", "START" -> {
                if (!DeferredBegin.startsTransaction(digest.text())) {
                    session.run(home, packet, Response.RESULT_SET, effects, false);
                    return;
                }
                if (DeferredBegin.tryDefer(session, digest.text(), digest.sql())) {
                    packet.release();
                    return;
                }
                // run as the client's statement (marking the transaction first would prepend a
                // second BEGIN as the lease's setup step)
                session.run(home, packet, Response.RESULT_SET, effects, false);
                session.transactionStarted(digest.sql());
            }
            case "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE" -> {
                if (DeferredBegin.tryEndUnopened(session, digest.text())) {
                    packet.release(); // no backend began it: nothing to end there
                    return;
                }
                List<BackendLease> others = session.leases().inTransaction(home);
                home.writing(); // read-your-writes counts from the end of the transaction
                others.forEach(BackendLease::writing);
                if (others.isEmpty()) {
                    session.run(home, packet, Response.RESULT_SET, effects, false);
                } else if (others.size() == 1 && !home.inTransaction()) {
                    // the transaction reached one hostgroup, not the home one: end it there alone
                    session.run(others.get(0), packet, Response.RESULT_SET, effects, false);
                } else {
                    packet.release();
                    if (home.inTransaction()) {
                        others.add(home);
                    }
                    new TransactionBroadcast(session, others, digest.sql()).start();
                }
            }
            default -> session.run(home, packet, Response.RESULT_SET, effects, false);
        }
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

    /** Whether the first word of {@code sql} is EXPLAIN (any case), as a cheap gate for {@link #EXPLAIN}. */
    static boolean startsWithExplain(String sql) {
        int i = 0;
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return sql.regionMatches(true, i, "EXPLAIN", 0, 7);
    }

    static boolean isInsert(String sql) {
        int i = 0;
        while (i < sql.length() && (Character.isWhitespace(sql.charAt(i)) || sql.charAt(i) == '(')) {
            i++;
        }
        return sql.regionMatches(true, i, "INSERT", 0, 6) || sql.regionMatches(true, i, "REPLACE", 0, 7);
    }
}
