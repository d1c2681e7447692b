package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ParameterType;
import io.shardgate.protocol.row.BinaryValue;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.router.routing.StatementRouter;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.key.KeyGenerator;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.Target;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a server-side prepared statement runs. The plan is made at COM_STMT_PREPARE (from the SQL
 * with its {@code ?} placeholders) and the statement is prepared on a hostgroup holding its
 * tables, which gives the client the right metadata; each COM_STMT_EXECUTE then computes its
 * target from the bound values, as a text statement does from its literals. A new rule version
 * re-plans on the next execution.
 */
final class PreparedRoute {
    private final Digest digest;
    private final String schema;
    private Plan plan;
    private RuleSnapshot rules;
    /** The home hostgroup when the plan refuses but no sharding can be involved (see StatementRouter), else -1. */
    private int passThrough;

    private PreparedRoute(Digest digest, String schema, Plan plan, RuleSnapshot rules) {
        this.digest = digest;
        this.schema = schema;
        adopt(plan, rules);
    }

    private void adopt(Plan plan, RuleSnapshot rules) {
        this.plan = plan;
        this.rules = rules;
        this.passThrough = plan.route() instanceof Route.Refuse && StatementRouter.passesThrough(digest, rules, schema)
                ? rules.homeOf(schema)
                : -1;
    }

    /** The planner's refusal, unless the statement passes through to the home hostgroup; else null. */
    Route.Refuse refusal() {
        return passThrough < 0 && plan.route() instanceof Route.Refuse refuse ? refuse : null;
    }

    /** True for a SELECT or SHOW: executing it changes no data (COMMIT, writes and DDL do). */
    boolean reads() {
        String session = sessionStatement();
        if (session != null) {
            return !session.equals("COMMIT");
        }
        return plan.kind() == io.shardgate.sharding.plan.StatementKind.SELECT
                || plan.kind() == io.shardgate.sharding.plan.StatementKind.SHOW;
    }

    /** SET, BEGIN, COMMIT...: the session statement's first word, or null. */
    String sessionStatement() {
        return plan.route() instanceof Route.Session s ? s.statement() : null;
    }

    static PreparedRoute plan(RoutingRules routing, Digest digest, String schema) {
        RuleSnapshot rules = routing.current();
        return new PreparedRoute(digest, schema, routing.plan(digest, schema, rules), rules);
    }

    Plan plan() {
        return plan;
    }

    Digest digest() {
        return digest;
    }

    RuleSnapshot rules() {
        return rules;
    }

    /** A hostgroup holding every table of the statement: where it is prepared. */
    int prepareHostgroup() {
        Route route = plan.route();
        if (passThrough >= 0) {
            return passThrough;
        } else if (route instanceof Route.OneHostgroup r) {
            return r.hostgroup();
        } else if (route instanceof Route.ByKey r) {
            return r.table().strategy().hostgroups().get(0);
        } else if (route instanceof Route.ByRange r) {
            return r.table().strategy().hostgroups().get(0);
        } else if (route instanceof Route.Scatter r) {
            return r.table().strategy().hostgroups().get(0);
        } else if (route instanceof Route.SplitInsert r) {
            return r.table().strategy().hostgroups().get(0);
        } else if (route instanceof Route.Broadcast r) {
            return r.hostgroups().get(0);
        }
        return rules.homeOf(schema);
    }

    /** One execution: its targets, its values, and its decoded parameters (null when not needed). */
    record Execution(Targets targets, Values values, ComStmtExecute parameters) {}

    /**
     * The targets of one execution; {@code execute} is the COM_STMT_EXECUTE payload with its
     * parameter types bound (see {@link ExecuteTypes}). Re-plans first if the rules changed. The
     * parameters are decoded only when the route depends on them or may span several hostgroups.
     */
    Execution execution(
            RoutingRules routing,
            ByteBuf execute,
            Capabilities client,
            int parameters,
            KeyGenerator keys,
            Charset charset) {
        RuleSnapshot now = routing.current();
        if (now != rules) {
            adopt(routing.plan(digest, schema, now), now);
        }
        if (passThrough >= 0) {
            return new Execution(Targets.of(List.of(Target.of(passThrough))), null, null);
        }
        if (plan.route() instanceof Route.OneHostgroup || plan.route() instanceof Route.Refuse) {
            Values none = Values.of(digest, nulls(digest.parameterCount()));
            return new Execution(plan.targets(none, rules), none, null);
        }
        ComStmtExecute decoded = ComStmtExecute.read(execute.duplicate(), client, parameters, List.of());
        List<Object> values = new ArrayList<>(decoded.parameterCount());
        for (int i = 0; i < decoded.parameterCount() && i < digest.parameterCount(); i++) {
            byte[] raw = decoded.values().get(i);
            values.add(raw == null ? null : value(raw, decoded.types().get(i), charset));
        }
        Values bound = Values.of(digest, values);
        if (plan.route() instanceof Route.SplitInsert split) {
            bound = split.withGeneratedKeys(bound, keys);
        }
        return new Execution(plan.targets(bound, rules), bound, decoded);
    }

    private static List<Object> nulls(int n) {
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(null);
        }
        return out;
    }

    /**
     * A bound value as the planner's values are typed: Long, BigDecimal, Double, String (decoded in
     * the client's {@code charset}, in which drivers send string parameters) or bytes.
     */
    private static Object value(byte[] raw, ParameterType type, Charset charset) {
        Object v = BinaryValue.read(Unpooled.wrappedBuffer(raw), type.type(), type.unsigned());
        if (v instanceof byte[] bytes && isText(type.type())) {
            return new String(bytes, charset);
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        if (v instanceof BigInteger big) {
            return new BigDecimal(big);
        }
        return v;
    }

    private static boolean isText(MySqlType type) {
        return switch (type) {
            case VARCHAR, VAR_STRING, STRING, ENUM, SET, JSON -> true;
            default -> false;
        };
    }
}
