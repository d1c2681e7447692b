package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.SchemaRule;
import java.util.function.BiFunction;
import org.apache.calcite.sql.SqlIdentifier;

/**
 * What {@link QueryPlanner} hands the planners it delegates a statement's shape to (a derived
 * table, a UNION): how to resolve a table name (the flag: whether the name is nested in a
 * subquery), the default schema's rule, the statement's text and the hostgroup of unsharded tables.
 */
record StatementContext(
        BiFunction<SqlIdentifier, Boolean, TableRef> resolve, SchemaRule schema, String text, int defaultHostgroup) {}
