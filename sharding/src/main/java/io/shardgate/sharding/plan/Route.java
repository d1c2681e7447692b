package io.shardgate.sharding.plan;

import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.key.KeyGenerator;
import io.shardgate.sharding.rule.KeyValues;
import io.shardgate.sharding.rule.KeyedStrategy;
import io.shardgate.sharding.rule.RangeStrategy;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a planned statement runs, decided once per statement shape; {@link #targets} applies it
 * to one execution's values. Slots are the {@code ?} of the normalized text, from 0.
 */
public sealed interface Route
        permits Route.OneHostgroup,
                Route.ByKey,
                Route.ByRange,
                Route.Scatter,
                Route.Broadcast,
                Route.SplitInsert,
                Route.Session,
                Route.Refuse {

    /** The hostgroups of this execution; no parsing, no planning. */
    Targets targets(Values values);

    /**
     * The targets of every execution when they do not depend on its values (built once), else
     * null: a plan-cache hit on such a route needs no {@link Values} at all.
     */
    default Targets fixedTargets() {
        return null;
    }

    /**
     * Requires nothing: every table of the statement lives on {@code hostgroup}.
     *
     * @param fixed the targets of every execution, built once
     */
    record OneHostgroup(int hostgroup, String reason, Targets fixed) implements Route {
        public OneHostgroup(int hostgroup, String reason) {
            this(hostgroup, reason, Targets.of(List.of(Target.of(hostgroup))));
        }

        @Override
        public Targets targets(Values values) {
            return fixed;
        }

        @Override
        public Targets fixedTargets() {
            return fixed;
        }
    }

    /**
     * Requires a hash or range table and the slot of an equality (or IN list) on its key: one
     * target per distinct owning hostgroup; a value with no key form scatters (it may still match
     * rows, e.g. '42abc' = 42 in MySQL).
     *
     * @param byHostgroup the targets of each of the table's hostgroups, built once
     * @param severalRefused null, or why the statement is correct on one shard only (a derived
     *     table narrowed by the key): an execution whose value maps to no hostgroup is then refused
     *     with it instead of scattered
     */
    record ByKey(TableRule table, int slot, TargetsByHostgroup byHostgroup, String severalRefused) implements Route {
        public ByKey(TableRule table, int slot) {
            this(table, slot, new TargetsByHostgroup(table.strategy().hostgroups()), null);
        }

        /** A route correct only when the key picks one shard; other executions are refused with {@code reason}. */
        public static ByKey oneShardOnly(TableRule table, int slot, String reason) {
            return new ByKey(
                    table, slot, new TargetsByHostgroup(table.strategy().hostgroups()), reason);
        }

        @Override
        public Targets targets(Values values) {
            KeyedStrategy keyed = table.keyed();
            if (values.size(slot) == 1) {
                // a point lookup, most of the traffic: no collection, a shared Targets
                int hg = keyed.hostgroupOf(values.scalar(slot));
                if (hg < 0 && severalRefused != null) {
                    return Targets.error(severalRefused);
                }
                return hg < 0 ? byHostgroup.all() : byHostgroup.one(hg);
            }
            if (severalRefused != null) {
                return Targets.error(severalRefused);
            }
            TreeSet<Integer> hostgroups = new TreeSet<>();
            for (Object value : values.slot(slot)) {
                int hg = keyed.hostgroupOf(value);
                if (hg < 0) {
                    return byHostgroup.all();
                }
                hostgroups.add(hg);
            }
            return hostgroups.size() == 1
                    ? byHostgroup.one(hostgroups.first())
                    : Targets.of(hostgroups.stream().map(Target::of).toList());
        }
    }

    /**
     * Requires a range table and at least one bound slot ({@code -1} = unbounded): the
     * hostgroups of the ranges overlapping the bounds; a bound with no integer form is unbounded.
     */
    record ByRange(
            TableRule table,
            int lower,
            boolean lowerInclusive,
            int upper,
            boolean upperInclusive,
            TargetsByHostgroup byHostgroup)
            implements Route {
        public ByRange(TableRule table, int lower, boolean lowerInclusive, int upper, boolean upperInclusive) {
            this(
                    table,
                    lower,
                    lowerInclusive,
                    upper,
                    upperInclusive,
                    new TargetsByHostgroup(table.strategy().hostgroups()));
        }

        @Override
        public Targets targets(Values values) {
            Long low = lower < 0 ? null : KeyValues.toInteger(values.scalar(lower));
            Long high = upper < 0 ? null : KeyValues.toInteger(values.scalar(upper));
            if (low != null && !lowerInclusive) {
                low = low == Long.MAX_VALUE ? null : low + 1;
            }
            if (high != null && !upperInclusive) {
                high = high == Long.MIN_VALUE ? null : high - 1;
            }
            RangeStrategy ranges = (RangeStrategy) table.strategy();
            int sole = ranges.soleHostgroupBetween(low, high);
            if (sole >= 0) { // most range reads: one shard, a shared Targets
                return byHostgroup.one(sole);
            }
            if (sole == RangeStrategy.NO_HOSTGROUP) {
                // an empty range matches no row; one hostgroup answers that (empty) result correctly
                return byHostgroup.one(ranges.hostgroups().get(0));
            }
            return Targets.of(
                    ranges.hostgroupsBetween(low, high).stream().map(Target::of).toList());
        }
    }

    /**
     * Requires a sharded table: every hostgroup holding it.
     *
     * @param all the targets of every execution, built once
     */
    record Scatter(TableRule table, Targets all) implements Route {
        public Scatter(TableRule table) {
            this(table, new TargetsByHostgroup(table.strategy().hostgroups()).all());
        }

        @Override
        public Targets targets(Values values) {
            return all;
        }

        @Override
        public Targets fixedTargets() {
            return all;
        }
    }

    /**
     * Requires hostgroups that each hold every table of the statement (broadcast copies, DDL on a
     * sharded table): a write runs on all of them, a read on any one.
     */
    record Broadcast(List<Integer> hostgroups, boolean write, Targets fixed) implements Route {
        public Broadcast(List<Integer> hostgroups, boolean write) {
            this(hostgroups, write, null);
        }

        public Broadcast {
            hostgroups = List.copyOf(new TreeSet<>(hostgroups));
            fixed = new Targets(hostgroups.stream().map(Target::of).toList(), !write, null);
        }

        @Override
        public Targets targets(Values values) {
            return fixed;
        }

        @Override
        public Targets fixedTargets() {
            return fixed;
        }
    }

    /**
     * Requires an INSERT into a hash or range table with the key slot of every VALUES row: rows are
     * grouped by owning hostgroup; a key that maps to no hostgroup refuses the execution. With key
     * generation a row's slot may be {@link #GENERATED} (key omitted, NULL or DEFAULT) and a slot
     * whose value is NULL is generated too: {@link #withGeneratedKeys} must run first.
     */
    record SplitInsert(TableRule table, List<Integer> keySlots) implements Route {
        /** A row whose key the router always generates. */
        public static final int GENERATED = -1;

        public SplitInsert {
            keySlots = List.copyOf(keySlots);
        }

        /**
         * The values plus a generated key for each row that needs one (keys from {@code keys}, in
         * row order, so the first is the statement's LAST_INSERT_ID); {@code values} itself when
         * no row does.
         */
        public Values withGeneratedKeys(Values values, KeyGenerator keys) {
            if (!table.generatesKeys()) {
                return values;
            }
            long[] byRow = new long[keySlots.size()];
            int needed = 0;
            for (int row = 0; row < byRow.length; row++) {
                if (needsKey(values, row)) {
                    byRow[row] = -1;
                    needed++;
                }
            }
            if (needed == 0) {
                return values;
            }
            long[] generated = keys.next(needed);
            int next = 0;
            for (int row = 0; row < byRow.length; row++) {
                if (byRow[row] == -1) {
                    byRow[row] = generated[next++];
                }
            }
            return values.withGeneratedKeys(byRow);
        }

        private boolean needsKey(Values values, int row) {
            int slot = keySlots.get(row);
            return slot == GENERATED || values.scalar(slot) == null;
        }

        @Override
        public Targets targets(Values values) {
            Map<Integer, List<Integer>> rows = new TreeMap<>();
            for (int row = 0; row < keySlots.size(); row++) {
                long generated = values.generatedKey(row);
                if (generated == 0 && table.generatesKeys() && needsKey(values, row)) {
                    throw new IllegalStateException(
                            "row " + (row + 1) + " needs a generated key: call withGeneratedKeys");
                }
                Object key = generated != 0 ? (Object) generated : values.scalar(keySlots.get(row));
                int hg = table.keyed().hostgroupOf(key);
                if (hg < 0) {
                    return Targets.error("row " + (row + 1) + " of INSERT INTO " + table.name() + ": sharding key "
                            + table.keyed().column() + " = " + show(key) + " maps to no hostgroup");
                }
                rows.computeIfAbsent(hg, k -> new ArrayList<>()).add(row);
            }
            List<Target> out = new ArrayList<>();
            new LinkedHashMap<>(rows).forEach((hg, r) -> out.add(new Target(hg, r)));
            return Targets.of(out);
        }

        private static String show(Object v) {
            return v instanceof byte[] ? "binary data" : String.valueOf(v);
        }
    }

    /**
     * Requires nothing: a session statement (SET, USE, BEGIN, COMMIT, ROLLBACK, LOCK/UNLOCK...)
     * that the router's session applies and replays on the backend connections it uses.
     */
    record Session(String statement) implements Route {
        @Override
        public Targets targets(Values values) {
            return Targets.of(List.of());
        }
    }

    /** A statement we cannot run correctly: answer {@code code} with {@code reason}, never guess. */
    record Refuse(ErrorCode code, String reason) implements Route {
        @Override
        public Targets targets(Values values) {
            return Targets.error(reason);
        }

        /** ER_NOT_SUPPORTED_YET (1235) with the reason. */
        public static Refuse notSupported(String reason) {
            return new Refuse(ErrorCode.ER_NOT_SUPPORTED_YET, reason);
        }
    }
}
