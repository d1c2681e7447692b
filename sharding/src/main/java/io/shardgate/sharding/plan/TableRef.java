package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.TableRule;

/**
 * A table named in a statement: its rule, the name statements use for its columns (alias or table
 * name), and whether it appears in a subquery rather than the top-level FROM.
 */
record TableRef(TableRule rule, String alias, boolean nested) {}
