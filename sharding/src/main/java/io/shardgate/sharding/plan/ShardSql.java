package io.shardgate.sharding.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * The SQL a plan sends to each target: the client's SQL unchanged, or a template over the
 * normalized text whose slots are filled with the client's own literal text (or placeholders) at
 * each execution. Templates never hold values.
 */
public sealed interface ShardSql
        permits ShardSql.Verbatim, ShardSql.Template, ShardSql.InsertRows, ShardSql.ByHostgroup {

    /** The SQL for {@code target} in this execution. */
    RenderedSql render(Values values, Target target);

    /** Deterministic text for describe(): slots as {@code ?N} (1-based), computed limits as {@code {?A+?B}}. */
    String describe();

    /** The client's SQL as received. */
    record Verbatim() implements ShardSql {
        @Override
        public RenderedSql render(Values values, Target target) {
            List<Integer> params = new ArrayList<>();
            for (int i = 0; i < values.digest().parameterCount(); i++) {
                params.add(i);
            }
            return new RenderedSql(values.digest().sql(), params);
        }

        @Override
        public String describe() {
            return "<client sql>";
        }
    }

    /** A rewritten statement (AVG split, hidden columns, LIMIT offset+count). */
    record Template(List<Segment> segments) implements ShardSql {
        public Template {
            segments = List.copyOf(segments);
        }

        @Override
        public RenderedSql render(Values values, Target target) {
            StringBuilder sql = new StringBuilder();
            List<Integer> params = new ArrayList<>();
            Segment.renderAll(segments, values, sql, params);
            return new RenderedSql(sql.toString(), params);
        }

        @Override
        public String describe() {
            return Segment.describeAll(segments);
        }
    }

    /**
     * A multi-row INSERT cut per target: the prefix, the target's rows joined by commas, the suffix.
     *
     * @param generatesKeys rows may carry router-generated keys: always rendered, never the client's SQL
     */
    record InsertRows(List<Segment> prefix, List<List<Segment>> rows, List<Segment> suffix, boolean generatesKeys)
            implements ShardSql {
        public InsertRows(List<Segment> prefix, List<List<Segment>> rows, List<Segment> suffix) {
            this(prefix, rows, suffix, false);
        }

        public InsertRows {
            prefix = List.copyOf(prefix);
            rows = rows.stream().map(List::copyOf).toList();
            suffix = List.copyOf(suffix);
        }

        @Override
        public RenderedSql render(Values values, Target target) {
            if (target.rows().size() == rows.size() && !generatesKeys) {
                return new Verbatim().render(values, target);
            }
            StringBuilder sql = new StringBuilder();
            List<Integer> params = new ArrayList<>();
            Segment.renderAll(prefix, values, sql, params);
            for (int i = 0; i < target.rows().size(); i++) {
                if (i > 0) {
                    sql.append(", ");
                }
                Segment.renderAll(rows.get(target.rows().get(i)), values, sql, params);
            }
            Segment.renderAll(suffix, values, sql, params);
            return new RenderedSql(sql.toString(), params);
        }

        @Override
        public String describe() {
            StringBuilder b = new StringBuilder(Segment.describeAll(prefix));
            for (int i = 0; i < rows.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(Segment.describeAll(rows.get(i)));
            }
            return b.append(Segment.describeAll(suffix)).toString();
        }
    }

    /** Different SQL per hostgroup (information_schema reads: each reports what it represents). */
    record ByHostgroup(java.util.Map<Integer, ShardSql> sql) implements ShardSql {
        public ByHostgroup {
            sql = java.util.Map.copyOf(sql);
        }

        @Override
        public RenderedSql render(Values values, Target target) {
            ShardSql mine = sql.get(target.hostgroup());
            if (mine == null) {
                throw new IllegalArgumentException("no SQL for hostgroup " + target.hostgroup());
            }
            return mine.render(values, target);
        }

        @Override
        public String describe() {
            StringBuilder b = new StringBuilder();
            new java.util.TreeMap<>(sql)
                    .forEach((hg, s) -> b.append(b.length() == 0 ? "" : " | ")
                            .append("hg")
                            .append(hg)
                            .append(": ")
                            .append(s.describe()));
            return b.toString();
        }
    }

    /** A piece of a template. */
    sealed interface Segment permits Text, Slot, LimitSum, EveryRowUnlessNone, GeneratedKey, KeySlot {
        static void renderAll(List<Segment> segments, Values values, StringBuilder sql, List<Integer> params) {
            for (Segment s : segments) {
                if (s instanceof Text t) {
                    sql.append(t.text());
                } else if (s instanceof Slot slot) {
                    sql.append(values.source(slot.slot()));
                    values.parametersOf(slot.slot(), params);
                } else if (s instanceof GeneratedKey key) {
                    GeneratedKey.render(key.row(), values, sql, params);
                } else if (s instanceof KeySlot key) {
                    if (values.generatedKey(key.row()) != 0) {
                        GeneratedKey.render(key.row(), values, sql, params);
                    } else {
                        sql.append(values.source(key.slot()));
                        values.parametersOf(key.slot(), params);
                    }
                } else if (s instanceof EveryRowUnlessNone e) {
                    e.render(values, sql, params);
                } else {
                    ((LimitSum) s).render(values, sql, params);
                }
            }
        }

        static String describeAll(List<Segment> segments) {
            StringBuilder b = new StringBuilder();
            for (Segment s : segments) {
                if (s instanceof Text t) {
                    b.append(t.text());
                } else if (s instanceof Slot slot) {
                    b.append('?').append(slot.slot() + 1);
                } else if (s instanceof GeneratedKey) {
                    b.append("{generated}");
                } else if (s instanceof KeySlot key) {
                    b.append("{?").append(key.slot() + 1).append(" or generated}");
                } else if (s instanceof EveryRowUnlessNone e) {
                    b.append("{all unless ?").append(e.countSlot() + 1).append(" = 0}");
                } else {
                    LimitSum l = (LimitSum) s;
                    b.append("{?")
                            .append(l.offsetSlot() + 1)
                            .append("+?")
                            .append(l.countSlot() + 1)
                            .append('}');
                }
            }
            return b.toString();
        }
    }

    /** Literal SQL text. */
    record Text(String text) implements Segment {}

    /** The client's text of one slot (a literal, a placeholder, or an IN list's elements). */
    record Slot(int slot) implements Segment {}

    /**
     * The key the router generated for INSERT row {@code row}: inlined as a number in the text
     * protocol; in the binary protocol a {@code ?} bound to it, so the shard SQL stays the same
     * across executions (and is prepared once per connection). Its parameter number is
     * {@link #parameter}.
     */
    record GeneratedKey(int row) implements Segment {
        static void render(int row, Values values, StringBuilder sql, List<Integer> params) {
            if (values.binary()) {
                sql.append('?');
                params.add(parameter(row));
            } else {
                sql.append(values.generatedKey(row));
            }
        }

        /** In {@link RenderedSql#parameters()}: a negative number, -(row + 1), stands for this row's key. */
        public static int parameter(int row) {
            return -(row + 1);
        }

        /** The row whose generated key a negative parameter number stands for. */
        public static int rowOf(int parameter) {
            return -parameter - 1;
        }
    }

    /** A key slot of a table that generates keys: the client's value, or the generated key when that is NULL. */
    record KeySlot(int slot, int row) implements Segment {}

    /**
     * A LIMIT pushed down to shards: the offset's value plus the count's, as one number (saturated:
     * LIMIT 18446744073709551615 is MySQL's "all the rows"). Values that are no LIMIT number go to the
     * shards as the client wrote them, for the shards to answer MySQL's own error.
     */
    /**
     * A LIMIT count for a shard that must return every row: 0 when the client's count is 0 (MariaDB
     * types the columns of a LIMIT 0 result differently), else 18446744073709551615. A count that is
     * no LIMIT number goes as the client wrote it, for the shards to answer MySQL's own error.
     */
    record EveryRowUnlessNone(int countSlot) implements Segment {
        void render(Values values, StringBuilder sql, List<Integer> params) {
            long count = LimitValue.of(values.scalar(countSlot));
            if (count < 0) {
                sql.append(values.source(countSlot));
                values.parametersOf(countSlot, params);
                return;
            }
            sql.append(count == 0 ? "0" : "18446744073709551615");
        }
    }

    record LimitSum(int offsetSlot, int countSlot) implements Segment {
        void render(Values values, StringBuilder sql, List<Integer> params) {
            long offset = LimitValue.of(values.scalar(offsetSlot));
            long count = LimitValue.of(values.scalar(countSlot));
            if (offset < 0 || count < 0) {
                sql.append(values.source(offsetSlot)).append(", ").append(values.source(countSlot));
                values.parametersOf(offsetSlot, params);
                values.parametersOf(countSlot, params);
                return;
            }
            long sum = offset + count;
            sql.append(sum < 0 ? Long.MAX_VALUE : sum);
        }
    }
}
