package io.shardgate.sharding.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.StatementPrefix;
import io.shardgate.sharding.rule.Role;
import io.shardgate.sharding.rule.RuleSnapshot;

/**
 * How to run one statement shape: built once per {@link PlanKey}, immutable, shared by every
 * session. It holds slot positions, never values: {@link #targets} and {@link #sql} take the
 * values of each execution.
 *
 * @param text the normalized text it was planned from (the plan cache compares it on a hit, so a
 *     64-bit digest collision can never pick a wrong plan)
 * @param sql what one target runs (usually the client's SQL unchanged)
 * @param scatterSql what each target runs when there are several (rewritten for the merge)
 * @param merge how several targets' results combine
 * @param columnsVersion the version of the tracked column lists the plan read ({@link
 *     io.shardgate.sharding.columns.ColumnCatalog}), or {@link #NO_COLUMNS} when it read none
 */
public record Plan(
        PlanKey key,
        String text,
        StatementKind kind,
        Role role,
        Route route,
        ShardSql sql,
        ShardSql scatterSql,
        MergeSpec merge,
        PlanStats stats,
        long columnsVersion) {
    /** {@link #columnsVersion} of a plan that does not depend on tracked column lists. */
    public static final long NO_COLUMNS = -1;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Targets of one execution.
     *
     * @throws IllegalStateException when {@code snapshot} is not the rule version the plan was built for
     */
    public Targets targets(Values values, RuleSnapshot snapshot) {
        if (snapshot.version() != key.ruleVersion()) {
            throw new IllegalStateException(
                    "plan of rule version " + key.ruleVersion() + " used with version " + snapshot.version());
        }
        return route.targets(values);
    }

    /**
     * Targets of one execution of a text statement: from the route alone when they do not depend on
     * values (no {@link Values} is built), else from the digest's literals.
     */
    public Targets targets(Digest digest, RuleSnapshot snapshot) {
        Targets fixed = route.fixedTargets();
        if (fixed != null && snapshot.version() == key.ruleVersion()) {
            return fixed;
        }
        return targets(Values.of(digest), snapshot);
    }

    /** The SQL for one target of {@code targets}. */
    public RenderedSql sql(Targets targets, Target target, Values values) {
        RenderedSql rendered = (targets.targets().size() > 1 ? scatterSql : sql).render(values, target);
        StatementPrefix prefix = values.digest().prefix();
        // SET STATEMENT ... FOR: the variables hold for the statement on every shard it runs on
        return prefix == null ? rendered : new RenderedSql(prefix.text() + rendered.sql(), rendered.parameters());
    }

    /** Deterministic JSON for golden tests and the admin's explain view. */
    public ObjectNode describeTree() {
        ObjectNode out = JSON.createObjectNode();
        out.put("kind", kind.name());
        out.put("role", role.name().toLowerCase(java.util.Locale.ROOT));
        describeRoute(out);
        if (route instanceof Route.Refuse || route instanceof Route.Session) {
            return out;
        }
        out.put("sql", sql.describe());
        boolean several = route instanceof Route.ByKey
                || route instanceof Route.ByRange
                || route instanceof Route.Scatter
                || route instanceof Route.SplitInsert
                || (route instanceof Route.Broadcast b && b.write());
        if (several) {
            if (!scatterSql.equals(sql)) {
                out.put("scatter_sql", scatterSql.describe());
            }
            if (!merge.equals(MergeSpec.CONCAT)) {
                out.set("merge", describeMerge());
            }
        }
        return out;
    }

    public String describe() {
        return describeTree().toString();
    }

    private void describeRoute(ObjectNode out) {
        out.put("route", route.getClass().getSimpleName());
        if (route instanceof Route.OneHostgroup r) {
            out.put("hostgroup", r.hostgroup()).put("reason", r.reason());
        } else if (route instanceof Route.ByKey r) {
            out.put("table", r.table().name())
                    .put("column", r.table().keyed().column())
                    .put("key", "?" + (r.slot() + 1));
            if (r.severalRefused() != null) {
                out.put("one_shard_only", r.severalRefused());
            }
        } else if (route instanceof Route.ByRange r) {
            out.put("table", r.table().name()).put("column", r.table().keyed().column());
            if (r.lower() >= 0) {
                out.put("lower", (r.lowerInclusive() ? ">= ?" : "> ?") + (r.lower() + 1));
            }
            if (r.upper() >= 0) {
                out.put("upper", (r.upperInclusive() ? "<= ?" : "< ?") + (r.upper() + 1));
            }
        } else if (route instanceof Route.Scatter r) {
            out.put("table", r.table().name());
        } else if (route instanceof Route.Broadcast r) {
            out.put("write", r.write());
            ArrayNode hgs = out.putArray("hostgroups");
            r.hostgroups().forEach(hgs::add);
        } else if (route instanceof Route.SplitInsert r) {
            out.put("table", r.table().name()).put("column", r.table().keyed().column());
            if (r.table().generatesKeys()) {
                out.put("key_generation", r.table().keyGeneration().name().toLowerCase(java.util.Locale.ROOT));
            }
            ArrayNode keys = out.putArray("keys");
            r.keySlots().forEach(s -> keys.add(s == Route.SplitInsert.GENERATED ? "generated" : "?" + (s + 1)));
        } else if (route instanceof Route.Session r) {
            out.put("statement", r.statement());
        } else if (route instanceof Route.Refuse r) {
            out.put("error", r.code().code() + ": " + r.reason());
        }
    }

    private ObjectNode describeMerge() {
        ObjectNode m = JSON.createObjectNode();
        if (merge.sumAffectedRows()) {
            m.put("sum_affected_rows", true);
        }
        if (!merge.groupBy().isEmpty()) {
            ArrayNode g = m.putArray("group_by");
            merge.groupBy().forEach(c -> g.add(c.toString()));
        }
        if (!merge.aggregates().isEmpty()) {
            ArrayNode a = m.putArray("aggregates");
            for (MergeSpec.Aggregate agg : merge.aggregates()) {
                a.add(agg.function() + " " + agg.column()
                        + (agg.countColumn() == null ? "" : " / " + agg.countColumn()));
            }
        }
        if (!merge.computed().isEmpty()) {
            ArrayNode c = m.putArray("computed");
            merge.computed().forEach(x -> c.add(x.toString()));
        }
        if (merge.having() != null) {
            m.put("having", merge.having().toString());
        }
        if (merge.distinct()) {
            m.put("distinct", true);
        }
        if (!merge.orderBy().isEmpty()) {
            ArrayNode o = m.putArray("order_by");
            merge.orderBy().forEach(k -> o.add(k.toString()));
        }
        if (merge.count() >= 0) {
            m.put("limit", (merge.offset() >= 0 ? "?" + (merge.offset() + 1) + ", " : "") + "?" + (merge.count() + 1));
        }
        if (merge.hiddenColumns() > 0) {
            m.put("hidden_columns", merge.hiddenColumns());
        }
        if (!merge.weights().isEmpty()) {
            ArrayNode w = m.putArray("collation_weights");
            merge.weights().forEach(x -> w.add(x.toString()));
        }
        if (merge.namesInByteOrder()) {
            m.put("names_in_byte_order", true);
        }
        return m;
    }
}
