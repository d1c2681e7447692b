package io.shardgate.router.routing;

import io.shardgate.router.session.LastInsertId;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.session.PreviousStatement;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import io.shardgate.sharding.key.KeyGenerator;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a client's COM_QUERY goes: from the statement's facts (digest, query rules, plan, session
 * effects), the rules in force and a view of the session to a {@link Decision}. In order:
 * <ul>
 *   <li>a query rule's error refuses it, a query rule's destination sends it there as it is;
 *   <li>a statement the planner refuses still runs unchanged where no sharding can be involved
 *       ({@link #passesThrough}), else it is refused with the planner's reason, never guessed;
 *   <li>a session statement (SET, USE, BEGIN, COMMIT...) goes to the home hostgroup, and the end of
 *       a transaction to every hostgroup it reached; a plain BEGIN is answered by the router;
 *   <li>one target (most traffic): that hostgroup, with the client's text when the plan keeps it;
 *   <li>several targets: each, the results merged, if the statement leaves the session as it was.
 * </ul>
 * A pure function: no I/O, no Netty, no clock; it reads the session view and changes nothing but
 * the key generator, from which an INSERT that leaves its keys to the router draws them.
 */
public final class StatementRouter {
    private static final Pattern EXPLAIN =
            Pattern.compile("^\\s*EXPLAIN\\s+SHARDGATE\\s+(.+)$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    /** The BEGIN texts (digest, upper case) the router may answer itself: valid as they are. */
    private static final Set<String> DEFERRABLE_BEGINS = Set.of(
            "BEGIN", "BEGIN WORK", "START TRANSACTION", "START TRANSACTION READ ONLY", "START TRANSACTION READ WRITE");

    /** Ends of a transaction that leave nothing behind when no backend began it (not AND CHAIN, RELEASE). */
    private static final Set<String> ENDS_ONLY = Set.of("COMMIT", "ROLLBACK", "COMMIT WORK", "ROLLBACK WORK");

    private static final String SCATTER_CHANGES_SESSION =
            "a statement on several hostgroups that changes session state";

    private StatementRouter() {}

    /**
     * The router's own answer to {@code sql} (digested as {@code digest}) before it is planned: {@code EXPLAIN SHARDGATE ...},
     * {@code SELECT LAST_INSERT_ID()} while the router holds the session's generated key, {@code
     * SELECT ROW_COUNT()} / {@code SELECT FOUND_ROWS()} when the router knows the previous
     * statement's; null for every other statement.
     */
    public static Decision answeredLocally(Digest digest, String sql, SessionView session) {
        if (digest.startsWith("EXPLAIN")) { // the regex (and its Matcher) only for statements that may be one
            Matcher explain = EXPLAIN.matcher(sql);
            if (explain.matches()) {
                return new Decision.Explain(explain.group(1));
            }
        }
        long lastInsertId = session.lastInsertId();
        if (lastInsertId != 0 && (digest.has(Mark.LAST_INSERT_ID) || digest.has(Mark.IDENTITY_VARIABLE))) {
            String column = LastInsertId.selectColumn(sql);
            if (column != null) {
                return new Decision.ValueRow(column, lastInsertId);
            }
        }
        long rowCount = session.previousRowCount();
        if (rowCount != PreviousStatement.UNKNOWN && digest.has(Mark.ROW_COUNT)) {
            String column = PreviousStatement.selectRowCount(sql);
            if (column != null) {
                return new Decision.ValueRow(column, rowCount);
            }
        }
        long foundRows = session.previousFoundRows();
        if (foundRows != PreviousStatement.UNKNOWN && digest.has(Mark.FOUND_ROWS)) {
            String column = PreviousStatement.selectFoundRows(sql);
            if (column != null) {
                return new Decision.ValueRow(column, foundRows);
            }
        }
        return null;
    }

    /** Whether {@link #decide} reads the plan for a statement matching {@code rule}: not when the rule decides. */
    public static boolean plans(QueryRuleMatch rule) {
        return rule.error() == null && rule.destinationHostgroup() == null;
    }

    /** Where the statement of {@code facts} goes, for {@code session} under {@code rules}. */
    public static Decision decide(StatementFacts facts, RuleSnapshot rules, SessionView session, KeyGenerator keys) {
        QueryRuleMatch rule = facts.rule();
        if (rule.error() != null) {
            return new Decision.Refuse(QueryRuleMatch.ERROR_CODE, "42000", rule.error());
        }
        if (rule.destinationHostgroup() != null) {
            return single(rule.destinationHostgroup(), null, null, rule.role(), facts);
        }
        Plan plan = Objects.requireNonNull(facts.plan(), "a statement no query rule routes needs its plan");
        Digest digest = facts.digest();
        Route route = plan.route();
        Role role = rule.role() != null ? rule.role() : plan.role();
        String schema = session.schema();
        if (route instanceof Route.Refuse refuse) {
            return passesThrough(digest, rules, schema)
                    ? single(rules.homeOf(schema), null, plan.kind(), role, facts)
                    : Decision.Refuse.of(refuse);
        }
        if (route instanceof Route.Session statement) {
            if (statement.statement().equals("LOCK") || statement.statement().equals("UNLOCK")) {
                return tableLocks(statement.statement(), digest.text(), rules, schema, session);
            }
            return sessionStatement(statement.statement(), digest.text(), rules.homeOf(schema), session);
        }
        // Values are built only when something reads them: a route fixed at planning (a table on one
        // hostgroup, most traffic) forwards the client's packet with no per-statement objects
        Values values = null;
        Targets targets;
        if (route instanceof Route.SplitInsert split) {
            values = split.withGeneratedKeys(Values.of(digest), keys);
            targets = plan.targets(values, rules);
        } else {
            targets = plan.targets(digest, rules);
        }
        if (targets.error() != null) {
            return Decision.Refuse.notSupported(targets.error());
        }
        List<Target> list = targets.targets();
        // generated keys: the client's OK must carry the first one, so even one target is answered by the merge
        if ((targets.anyOne() || list.size() == 1) && (values == null || values.firstGeneratedKey() == 0)) {
            Target target = targets.anyOne() ? pickOne(list, session) : list.get(0);
            RenderedSql rewritten = plan.sql() instanceof ShardSql.Verbatim
                    ? null
                    : plan.sql(targets, target, values != null ? values : Values.of(digest));
            return single(target.hostgroup(), rewritten, plan.kind(), role, facts);
        }
        if (!facts.effects().isNone()) {
            // session effects of a statement on several hostgroups would land on one shard's session only
            return Decision.Refuse.notSupported(SCATTER_CHANGES_SESSION);
        }
        if (plan.kind() == StatementKind.SELECT) {
            String refusal = MergeSessionVariables.refusal(session.variables(), plan.merge());
            if (refusal != null) {
                return Decision.Refuse.notSupported(refusal);
            }
        }
        return new Decision.Scatter(plan, targets, values != null ? values : Values.of(digest));
    }

    private static Decision.Single single(
            int hostgroup, RenderedSql rewritten, StatementKind kind, Role role, StatementFacts facts) {
        boolean reads = (kind == StatementKind.SELECT || kind == StatementKind.SHOW) && !facts.insert();
        return new Decision.Single(
                hostgroup,
                rewritten,
                kind,
                role,
                Boolean.FALSE.equals(facts.rule().multiplex()),
                reads);
    }

    /** A read any of several copies can answer: one the session already holds, else the first. */
    private static Target pickOne(List<Target> targets, SessionView session) {
        for (Target t : targets) {
            if (session.holdsConnection(t.hostgroup())) {
                return t;
            }
        }
        return targets.get(0);
    }

    /**
     * SET, USE, LOCK... run on the home hostgroup; a plain BEGIN is declared by the router; a
     * transaction's end (COMMIT, ROLLBACK) and savepoints go to every hostgroup it reached.
     */
    private static Decision sessionStatement(String statement, String digestText, int home, SessionView session) {
        switch (statement) {
            case "BEGIN", "START" -> {
                if (!startsTransaction(digestText)) {
                    return new Decision.OnHome(false);
                }
                if (defersBegin(digestText, session)) {
                    return new Decision.DeclareTransaction(readOnly(digestText));
                }
                return new Decision.OnHome(true);
            }
            case "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE" -> {
                if (endsUnopened(digestText, session)) {
                    return new Decision.EndUnopened();
                }
                List<Integer> open = session.transactionHostgroups();
                List<Integer> others = new ArrayList<>(open.size());
                for (int hostgroup : open) {
                    if (hostgroup != home) {
                        others.add(hostgroup);
                    }
                }
                boolean homeOpen = others.size() < open.size();
                if (others.isEmpty()) {
                    return new Decision.EndTransaction(home);
                }
                if (others.size() == 1 && !homeOpen) {
                    // the transaction reached one hostgroup, not the home one: end it there alone
                    return new Decision.EndTransaction(others.get(0));
                }
                if (homeOpen) {
                    others.add(home);
                }
                return new Decision.EndEverywhere(others);
            }
            default -> {
                return new Decision.OnHome(false);
            }
        }
    }

    /**
     * LOCK TABLES runs on every hostgroup holding a named table (each naming its own tables), or on
     * the home hostgroup when that holds them all; UNLOCK TABLES on every hostgroup the session holds
     * a connection to. See {@link TableLocks}.
     */
    private static Decision tableLocks(
            String statement, String digestText, RuleSnapshot rules, String schema, SessionView session) {
        int home = rules.homeOf(schema);
        if (statement.equals("LOCK")) {
            java.util.Map<Integer, String> locks = TableLocks.byHostgroup(digestText, rules, schema);
            if (locks == null || locks.isEmpty() || (locks.size() == 1 && locks.containsKey(home))) {
                return new Decision.OnHome(false);
            }
            return new Decision.LockEverywhere(locks);
        }
        List<Integer> held = new ArrayList<>();
        for (int hostgroup : rules.hostgroups()) {
            if (session.holdsConnection(hostgroup)) {
                held.add(hostgroup);
            }
        }
        if (held.isEmpty() || (held.size() == 1 && held.get(0) == home)) {
            return new Decision.OnHome(false);
        }
        return new Decision.UnlockEverywhere(held);
    }

    /**
     * Statements the planner refuses for lack of sharding support (CALL, LOAD DATA, EXPLAIN,
     * multi-statements...) still run unchanged where no sharding can be involved: every database
     * the session is in or the text names lives whole on one hostgroup (a plain proxy setup).
     */
    public static boolean passesThrough(Digest digest, RuleSnapshot rules, String schema) {
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

    /** Whether the session statement {@code digestText} (BEGIN..., START...) starts a transaction. */
    public static boolean startsTransaction(String digestText) {
        // the digest keeps non-reserved words (START, TRANSACTION, BEGIN) in the client's case
        String upper = digestText.toUpperCase(Locale.ROOT);
        return upper.startsWith("BEGIN") || upper.startsWith("START TRANSACTION");
    }

    /**
     * Whether the BEGIN {@code digestText} can wait for the transaction's first statement (the
     * router answers it): only the forms in {@link #DEFERRABLE_BEGINS} — not WITH CONSISTENT
     * SNAPSHOT, whose snapshot is taken at the START itself, nor any other text, which the server
     * must see to judge (it refuses {@code START TRANSACTION READ ONLY, READ WRITE}) — and not while a BEGIN has something to end (an open transaction, LOCK TABLES, XA).
     * The digest keeps non-reserved words in the client's case, hence the upper-casing.
     */
    public static boolean defersBegin(String digestText, SessionView session) {
        if (!DEFERRABLE_BEGINS.contains(digestText.toUpperCase(Locale.ROOT))) {
            return false;
        }
        Set<PinReason> pins = session.pins();
        return session.transactionHostgroups().isEmpty()
                && !pins.contains(PinReason.LOCK_TABLES)
                && !pins.contains(PinReason.XA)
                && !pins.contains(PinReason.XA_BRANCH);
    }

    /** Whether the BEGIN {@code digestText} is START TRANSACTION READ ONLY. */
    public static boolean readOnly(String digestText) {
        return digestText.toUpperCase(Locale.ROOT).contains("READ ONLY");
    }

    /** Whether {@code digestText} is a COMMIT / ROLLBACK of a transaction no backend began. */
    public static boolean endsUnopened(String digestText, SessionView session) {
        return session.transactionOnlyDeclared() && ENDS_ONLY.contains(digestText.toUpperCase(Locale.ROOT));
    }
}
