package io.shardgate.sharding.plan;

import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.columns.ColumnCatalog;
import io.shardgate.sharding.columns.TableColumns;
import io.shardgate.sharding.digest.StatementModifiers;
import io.shardgate.sharding.rule.HashStrategy;
import io.shardgate.sharding.rule.KeyType;
import io.shardgate.sharding.rule.Role;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.SingleStrategy;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;

/**
 * Plans SELECT, INSERT, UPDATE and DELETE from Calcite's parse of the normalized text: resolves
 * tables to rules, picks the route ({@link Placement}) and, for routes that may reach several
 * hostgroups, the shard SQL and the merge ({@link MergePlanner}). One instance per statement.
 */
final class QueryPlanner {
    private static final Set<String> SYSTEM_SCHEMAS =
            Set.of("information_schema", "mysql", "performance_schema", "sys");

    private final RuleSnapshot rules;
    private final SchemaRule schema;
    private final String schemaName;
    private final String text;
    private final int defaultHostgroup;
    private final Set<StatementModifiers.Modifier> modifiers;
    private final ColumnCatalog columns;
    /** Whether the plan depends on {@link #columns} (an INSERT without a column list). */
    private boolean readColumns;

    private String resolveError;
    private ErrorCode resolveCode = ErrorCode.ER_NOT_SUPPORTED_YET;

    QueryPlanner(
            RuleSnapshot rules,
            ColumnCatalog columns,
            String schemaName,
            String text,
            Set<StatementModifiers.Modifier> modifiers) {
        this.rules = rules;
        this.columns = columns;
        this.modifiers = modifiers;
        this.schemaName = schemaName;
        this.schema = rules.schema(schemaName);
        this.text = text;
        this.defaultHostgroup =
                schema != null ? schema.defaultHostgroup() : rules.hostgroups().first();
    }

    /** {@code locking}: the text ended in FOR UPDATE / LOCK IN SHARE MODE (stripped before parsing). */
    Planned select(SqlNode node, boolean locking) {
        // walked first: the merge planners need not understand what the allowlist refuses anyway
        String constructs = MultiShardConstructs.refusal(node);
        Planned planned;
        try {
            planned = planSelect(node, locking);
        } catch (RuntimeException e) {
            if (constructs == null) {
                throw e;
            }
            return Planned.refuse(StatementKind.SELECT, constructs);
        }
        if (!multiHost(planned.route())) {
            return planned;
        }
        String refusal = modifiers.contains(StatementModifiers.Modifier.SQL_CALC_FOUND_ROWS)
                ? "SQL_CALC_FOUND_ROWS on several shards: FOUND_ROWS() would count one shard's rows"
                : constructs;
        if (refusal == null) {
            refusal = outerJoinRefusal(node);
        }
        if (refusal == null) {
            return planned;
        }
        if (planned.route() instanceof Route.ByKey key && key.severalRefused() == null) {
            // an equality on the key still runs, untouched, on the one shard it picks
            return new Planned(
                    planned.kind(),
                    planned.role(),
                    Route.ByKey.oneShardOnly(key.table(), key.slot(), refusal),
                    new ShardSql.Verbatim(),
                    new ShardSql.Verbatim(),
                    MergeSpec.CONCAT);
        }
        return Planned.refuse(StatementKind.SELECT, refusal);
    }

    /**
     * An outer join run on every shard is MySQL's only when its preserved side is split between
     * the shards: a preserved broadcast (or unlisted) table joined to a sharded one keeps its
     * unmatched rows on every shard, so the client would get them once per shard.
     */
    private String outerJoinRefusal(SqlNode statement) {
        String[] found = {null};
        statement.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                if (found[0] == null && call instanceof SqlJoin join) {
                    found[0] = outerJoinRefusal(join);
                }
                return super.visit(call);
            }
        });
        return found[0];
    }

    private String outerJoinRefusal(SqlJoin join) {
        JoinType type = join.getJoinType();
        boolean left = partitioned(join.getLeft());
        boolean right = partitioned(join.getRight());
        if (type == JoinType.FULL && (left || right)) {
            return "FULL JOIN of a sharded table on several shards";
        }
        if ((type == JoinType.LEFT && !left && right) || (type == JoinType.RIGHT && left && !right)) {
            return type + " JOIN that keeps every row of a table held whole by each shard ("
                    + (type == JoinType.LEFT ? join.getLeft() : join.getRight())
                    + ") while the joined table is sharded: its unmatched rows would come once per shard";
        }
        return null;
    }

    /** Whether a FROM item holds a sharded table, whose rows the shards split between them. */
    private boolean partitioned(SqlNode from) {
        if (from instanceof SqlJoin join) {
            return partitioned(join.getLeft()) || partitioned(join.getRight());
        }
        SqlNode table = from.getKind() == SqlKind.AS ? ((SqlBasicCall) from).operand(0) : from;
        if (table instanceof SqlIdentifier id) {
            return resolve(id, false).rule().sharded();
        }
        return true; // a derived table or table function: the planners that accept one decide
    }

    private Planned planSelect(SqlNode node, boolean locking) {
        Role role = locking ? Role.WRITER : Role.READER;
        SqlOrderBy orderBy = node instanceof SqlOrderBy o ? o : null;
        SqlNode query = orderBy != null ? orderBy.query : node;
        if (query instanceof SqlSelect outer && DerivedTablePlanner.derived(outer) != null) {
            Planned derived =
                    new DerivedTablePlanner(context()).plan(outer, DerivedTablePlanner.derived(outer), orderBy, role);
            if (resolveError != null) {
                return Planned.of(StatementKind.SELECT, role, new Route.Refuse(resolveCode, resolveError));
            }
            if (derived != null) {
                return derived;
            }
        }
        TableCollector tables = new TableCollector(this::resolve).tyingSubqueries();
        if (query instanceof SqlSelect select) {
            tables.select(select, false);
        } else {
            tables.expressions(query); // UNION and friends: every table is "nested"
        }
        if (resolveError != null) {
            return Planned.of(StatementKind.SELECT, role, new Route.Refuse(resolveCode, resolveError));
        }
        Placement placement = new Placement(tables.refs, schema);
        if (tables.unsupported() == null && tables.refs.stream().noneMatch(TableRef::nested)) {
            Planned catalog = new InformationSchemaPlanner(rules, text).plan(query, orderBy, placement);
            if (catalog != null) {
                return catalog;
            }
        }
        List<SqlNode> where = query instanceof SqlSelect s ? Placement.conjuncts(s.getWhere()) : List.of();
        Route route = placement.route(tables.joinConditions, where, false, defaultHostgroup);
        if (tables.unsupported() != null && !singleHost(route)) {
            route = Route.Refuse.notSupported(tables.unsupported()
                    + " over sharded or broadcast tables is not supported yet (a derived table alone in FROM runs"
                    + " on the shards when its SELECT neither aggregates, DISTINCTs nor LIMITs, or groups by the"
                    + " sharding key, or when an equality on the key picks one shard)");
        }
        if (query.getKind() == SqlKind.UNION && !singleHost(route)) {
            return new UnionPlanner(context()).plan((org.apache.calcite.sql.SqlCall) query, orderBy, role);
        }
        if (!(query instanceof SqlSelect) && !singleHost(route)) {
            route = Route.Refuse.notSupported(query.getKind().sql
                    + " over sharded tables is not supported yet (each SELECT of it would need its own merge); it runs"
                    + " when every table of it is on one hostgroup or broadcast");
        }
        if (singleHost(route) || route instanceof Route.Refuse) {
            return Planned.of(StatementKind.SELECT, role, route);
        }
        return new MergePlanner(text, placement).plan((SqlSelect) query, orderBy, role, route);
    }

    Planned update(SqlUpdate update, boolean limited) {
        TableRef target = resolve((SqlIdentifier) update.getTargetTable(), false);
        if (resolveError != null) {
            return Planned.of(StatementKind.UPDATE, Role.WRITER, new Route.Refuse(resolveCode, resolveError));
        }
        if (target.rule().sharded()) {
            String key = target.rule().keyed().column();
            for (SqlNode column : update.getTargetColumnList()) {
                if (((SqlIdentifier) column)
                        .names
                        .get(((SqlIdentifier) column).names.size() - 1)
                        .equalsIgnoreCase(key)) {
                    return Planned.refuse(
                            StatementKind.UPDATE,
                            "UPDATE of the sharding key " + key + " of "
                                    + target.rule().name() + " would move rows between shards");
                }
            }
        }
        String alias = update.getAlias() != null
                ? update.getAlias().getSimple()
                : target.rule().name();
        return dml(
                StatementKind.UPDATE, target, alias, update.getCondition(), update.getSourceExpressionList(), limited);
    }

    Planned delete(SqlDelete delete, boolean limited) {
        TableRef target = resolve((SqlIdentifier) delete.getTargetTable(), false);
        if (resolveError != null) {
            return Planned.of(StatementKind.DELETE, Role.WRITER, new Route.Refuse(resolveCode, resolveError));
        }
        String alias = delete.getAlias() != null
                ? delete.getAlias().getSimple()
                : target.rule().name();
        return dml(StatementKind.DELETE, target, alias, delete.getCondition(), null, limited);
    }

    private Planned dml(
            StatementKind kind,
            TableRef target,
            String alias,
            SqlNode condition,
            SqlNodeList sources,
            boolean limited) {
        TableCollector tables = new TableCollector(this::resolve);
        tables.refs.add(new TableRef(target.rule(), alias, false));
        tables.expressions(condition);
        tables.expressions(sources);
        if (resolveError != null) {
            return Planned.of(kind, Role.WRITER, new Route.Refuse(resolveCode, resolveError));
        }
        Placement placement = new Placement(tables.refs, schema);
        Route route = placement.route(List.of(), Placement.conjuncts(condition), true, defaultHostgroup);
        if (tables.unsupported() != null && !singleHost(route)) {
            route = Route.Refuse.notSupported(tables.unsupported() + " in " + kind + " of a sharded table");
        }
        boolean oneTarget =
                route instanceof Route.OneHostgroup || (route instanceof Route.ByKey k && !isList(k.slot()));
        if (limited && !oneTarget && !(route instanceof Route.Refuse)) {
            route = Route.Refuse.notSupported(kind + " with LIMIT on several shards");
        }
        if (!oneTarget && multiHost(route)) {
            String refusal = MultiShardConstructs.refusal(condition);
            if (refusal == null) {
                refusal = MultiShardConstructs.refusal(sources);
            }
            if (refusal != null) {
                route = Route.Refuse.notSupported(refusal);
            }
        }
        return Planned.of(kind, Role.WRITER, route);
    }

    Planned insert(SqlInsert insert, boolean replace) {
        StatementKind kind = StatementKind.INSERT;
        String verb = replace ? "REPLACE" : "INSERT";
        TableRef target = resolve((SqlIdentifier) insert.getTargetTable(), false);
        if (resolveError != null) {
            return Planned.of(kind, Role.WRITER, new Route.Refuse(resolveCode, resolveError));
        }
        SqlNode source = insert.getSource();
        if (source.getKind() != SqlKind.VALUES || containsQuery(source)) {
            return insertFromQuery(target, source, verb);
        }
        TableRule rule = target.rule();
        if (!rule.sharded()) {
            Route route = rule.strategy() instanceof SingleStrategy s
                    ? new Route.OneHostgroup(s.hostgroup(), "table " + rule.name())
                    : new Route.Broadcast(rule.strategy().hostgroups(), true);
            return Planned.of(kind, Role.WRITER, route);
        }
        SqlNodeList listed = insert.getTargetColumnList();
        List<String> names;
        if (listed != null) {
            names = listed.stream().map(c -> ((SqlIdentifier) c).getSimple()).toList();
        } else {
            Planned refusal = null;
            readColumns = true;
            SqlIdentifier id = (SqlIdentifier) insert.getTargetTable();
            String db = id.names.size() > 1 ? id.names.get(id.names.size() - 2) : schemaName;
            TableColumns known = columns.lookup(db, rule.name());
            if (known instanceof TableColumns.Known k) {
                names = k.names();
                refusal = countMismatch((SqlBasicCall) source, names.size());
            } else {
                names = null;
                refusal = Planned.refuse(
                        kind,
                        verb + " without a column list into sharded table " + rule.name() + ": "
                                + (known instanceof TableColumns.Untracked u
                                        ? u.reason()
                                        : ((TableColumns.Disagreeing) known).disagreement())
                                + " (name the columns, or see schema tracking in docs/backup-restore.md)");
            }
            if (refusal != null) {
                return refusal;
            }
        }
        return keyedInsert(rule, names, (SqlBasicCall) source, verb);
    }

    /** Whether the plan read the tracked column lists (and must be re-planned when they change). */
    boolean readColumns() {
        return readColumns;
    }

    /** MySQL's error for a VALUES row whose value count is not the table's column count, or null. */
    private static Planned countMismatch(SqlBasicCall values, int columnCount) {
        List<SqlNode> rows = values.getOperandList();
        for (int r = 0; r < rows.size(); r++) {
            if (((SqlBasicCall) rows.get(r)).operandCount() != columnCount) {
                return Planned.of(
                        StatementKind.INSERT,
                        Role.WRITER,
                        new Route.Refuse(
                                ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW,
                                "Column count doesn't match value count at row " + (r + 1)));
            }
        }
        return null;
    }

    /**
     * INSERT ... SELECT, or VALUES with subqueries: the rows come from the shards' tables, so the
     * statement runs where those tables are and the target is. Allowed when every table is on one
     * hostgroup, or when a broadcast target reads only broadcast tables (every copy computes the same
     * rows); a sharded target would need each row placed by its key, and a broadcast target reading
     * another hostgroup's table would leave its copies different.
     */
    private Planned insertFromQuery(TableRef target, SqlNode source, String verb) {
        StatementKind kind = StatementKind.INSERT;
        TableCollector tables = new TableCollector(this::resolve);
        tables.refs.add(target);
        tables.expressions(source);
        if (resolveError != null) {
            return Planned.of(kind, Role.WRITER, new Route.Refuse(resolveCode, resolveError));
        }
        String form = source.getKind() == SqlKind.VALUES ? verb + " ... VALUES with a subquery" : verb + " ... SELECT";
        boolean broadcastTarget = target.rule().strategy() instanceof io.shardgate.sharding.rule.BroadcastStrategy;
        if (broadcastTarget) {
            boolean allBroadcast = tables.refs.stream()
                    .allMatch(r -> r.rule().strategy() instanceof io.shardgate.sharding.rule.BroadcastStrategy
                            && r.rule()
                                    .strategy()
                                    .hostgroups()
                                    .equals(target.rule().strategy().hostgroups()));
            return allBroadcast
                    ? Planned.of(
                            kind,
                            Role.WRITER,
                            new Route.Broadcast(target.rule().strategy().hostgroups(), true))
                    : Planned.refuse(
                            kind,
                            form + " into broadcast table " + target.rule().name()
                                    + " from tables that are not broadcast: its copies would differ");
        }
        Route route = new Placement(tables.refs, schema).route(List.of(), List.of(), true, defaultHostgroup);
        if (!(route instanceof Route.OneHostgroup)) {
            return Planned.refuse(kind, form + " is supported only when every table is on one hostgroup");
        }
        return Planned.of(kind, Role.WRITER, route);
    }

    private static boolean containsQuery(SqlNode node) {
        Boolean[] found = {false};
        node.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                if (call.getKind() == SqlKind.SELECT || call.getKind() == SqlKind.UNION) {
                    found[0] = true;
                }
                return super.visit(call);
            }
        });
        return found[0];
    }

    /** An INSERT into a hash or range table: rows split by key, keys generated where the rule says. */
    private Planned keyedInsert(TableRule rule, List<String> columns, SqlBasicCall source, String verb) {
        StatementKind kind = StatementKind.INSERT;
        String key = rule.keyed().column();
        int keyIndex = -1;
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).equalsIgnoreCase(key)) {
                keyIndex = i;
            }
        }
        if (keyIndex < 0 && !rule.generatesKeys()) {
            return Planned.refuse(
                    kind,
                    verb + " into " + rule.name() + " without its sharding key " + key
                            + " (declare key_generation: snowflake on the table to have the router generate it)");
        }
        List<SqlNode> rows = source.getOperandList();
        List<Integer> keySlots = new ArrayList<>();
        List<SqlTemplate.Edit> keyEdits = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            if (keyIndex < 0) {
                keySlots.add(Route.SplitInsert.GENERATED);
                continue;
            }
            SqlNode value = ((SqlBasicCall) rows.get(r)).operand(keyIndex);
            int start = value.getParserPosition().getColumnNum() - 1;
            int end = value.getParserPosition().getEndColumnNum();
            if (rule.generatesKeys() && isNullOrDefault(value)) {
                keySlots.add(Route.SplitInsert.GENERATED);
                keyEdits.add(new SqlTemplate.Edit(start, end, List.of(new ShardSql.GeneratedKey(r))));
                continue;
            }
            if (!(value instanceof SqlDynamicParam p) || isList(p.getIndex())) {
                return Planned.refuse(
                        kind,
                        "the sharding key " + key + " of every row of " + verb + " INTO " + rule.name()
                                + " must be a literal or a parameter"
                                + (rule.generatesKeys() ? " (or NULL / DEFAULT to generate it)" : ""));
            }
            keySlots.add(p.getIndex());
            keyEdits.add(new SqlTemplate.Edit(start, end, List.of(new ShardSql.KeySlot(p.getIndex(), r))));
        }
        ShardSql split = !rule.generatesKeys()
                ? InsertSplitter.split(text)
                : InsertSplitter.split(text, keyIndex < 0 ? key : null, keyIndex < 0 ? null : keyEdits);
        if (split == null) {
            return Planned.refuse(kind, "cannot locate the VALUES rows of " + verb + " INTO " + rule.name());
        }
        Route route = new Route.SplitInsert(rule, keySlots);
        // generated keys are part of the SQL: even one target gets the rendered statement
        ShardSql single = rule.generatesKeys() ? split : new ShardSql.Verbatim();
        return new Planned(kind, Role.WRITER, route, single, split, MergeSpec.AFFECTED_ROWS);
    }

    /** NULL or DEFAULT as a key value: MySQL's way of asking for the next AUTO_INCREMENT value. */
    private static boolean isNullOrDefault(SqlNode value) {
        return (value instanceof SqlLiteral literal && literal.getValue() == null)
                || value.getKind() == SqlKind.DEFAULT;
    }

    private boolean isList(int slot) {
        // a collapsed IN list is the only "(...)" of the text; slots are numbered in text order
        SqlTemplate t = new SqlTemplate(text);
        int at = text.indexOf("(...)");
        while (at >= 0) {
            if (t.slotsBefore(at) == slot) {
                return true;
            }
            at = text.indexOf("(...)", at + 1);
        }
        return false;
    }

    /** A route that may reach several hostgroups: its statement runs only with allowlisted constructs. */
    private static boolean multiHost(Route route) {
        return !(route instanceof Route.Refuse) && !singleHost(route);
    }

    private static boolean singleHost(Route route) {
        return route instanceof Route.OneHostgroup || (route instanceof Route.Broadcast b && !b.write());
    }

    /** Resolves {@code [schema.]table}; records a refusal reason instead of throwing. */
    private StatementContext context() {
        return new StatementContext(this::resolve, schema, text, defaultHostgroup);
    }

    private TableRef resolve(SqlIdentifier id, boolean nested) {
        String table = id.names.get(id.names.size() - 1);
        String db = id.names.size() > 1 ? id.names.get(id.names.size() - 2) : null;
        if (db != null && SYSTEM_SCHEMAS.contains(db.toLowerCase(Locale.ROOT))) {
            return new TableRef(new TableRule(table, new SingleStrategy(defaultHostgroup)), table, nested);
        }
        SchemaRule s = db == null ? schema : rules.schema(db);
        if (s == null) {
            if (db == null && schemaName == null) {
                resolveCode = ErrorCode.ER_NO_DB_ERROR;
                resolveError = "No database selected";
            } else if (resolveError == null) {
                resolveCode = ErrorCode.ER_BAD_DB_ERROR;
                resolveError = "Unknown database '" + (db != null ? db : schemaName) + "'";
            }
            return new TableRef(new TableRule(table, new SingleStrategy(defaultHostgroup)), table, nested);
        }
        TableRule rule = s.resolve(table);
        if (rule.strategy() instanceof HashStrategy hash && hash.keyType() == KeyType.STRING) {
            // the verdict changes with what schema tracking learns: the plan must be re-made then
            readColumns = true;
            String conflict = columns.keyCollationConflict(s.name(), rule);
            if (conflict != null && resolveError == null) {
                resolveError = conflict;
            }
        }
        return new TableRef(rule, table, nested);
    }
}
