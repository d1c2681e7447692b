package io.shardgate.merge;

import static io.shardgate.merge.ShardResponses.bigint;
import static io.shardgate.merge.ShardResponses.dbl;
import static io.shardgate.merge.ShardResponses.decimal;
import static io.shardgate.merge.ShardResponses.integer;
import static io.shardgate.merge.ShardResponses.row;
import static io.shardgate.merge.ShardResponses.varchar;
import static io.shardgate.merge.ShardResponses.varcharBin;
import static io.shardgate.merge.ShardResponses.weights;
import static io.shardgate.merge.ShardResponses.withGeneralCiWeights;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Aggregate;
import io.shardgate.sharding.plan.MergeSpec.Column;
import io.shardgate.sharding.plan.MergeSpec.Function;
import io.shardgate.sharding.plan.MergeSpec.SortKey;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ShardResultMergerTest {
    private static final int STATUS = 0x0002 | 0x4000;
    private ShardResponses shards;

    @AfterEach
    void release() {
        if (shards != null) {
            shards.releaseAll();
        }
    }

    static Stream<Arguments> protocols() {
        return Stream.of(
                Arguments.of(false, false),
                Arguments.of(false, true),
                Arguments.of(true, false),
                Arguments.of(true, true));
    }

    private MergedResponse merge(
            boolean binary, boolean deprecateEof, MergeSpec spec, long offset, long count, ByteBuf... responses) {
        ByteBuf out = ShardResultMerger.merge(
                ShardResponses.ALLOC, List.of(responses), spec, offset, count, binary, deprecateEof, STATUS);
        MergedResponse merged = MergedResponse.decodeAndRelease(out, binary, deprecateEof);
        for (ByteBuf r : responses) {
            assertThat(r.refCnt())
                    .as("the merge neither retains nor releases the shard responses")
                    .isEqualTo(1);
        }
        return merged;
    }

    private static MergeSpec spec(
            List<SortKey> order, List<Column> group, List<Aggregate> aggregates, boolean distinct, int hidden) {
        return new MergeSpec(order, group, aggregates, distinct, -1, -1, hidden, false);
    }

    /** The spec with the weights of string columns {@code value} at the hidden column pairs given. */
    private static MergeSpec weighed(MergeSpec spec, MergeSpec.Weights... weights) {
        return new MergeSpec(
                spec.orderBy(),
                spec.groupBy(),
                spec.aggregates(),
                spec.distinct(),
                spec.offset(),
                spec.count(),
                spec.hiddenColumns(),
                false,
                null,
                List.of(),
                List.of(weights),
                false,
                List.of());
    }

    private static MergeSpec.Weights weighedAt(Column value, int hiddenWeight) {
        return new MergeSpec.Weights(value, hidden(hiddenWeight), hidden(hiddenWeight + 1));
    }

    private static Column col(int index) {
        return new Column(index, false);
    }

    private static Column hidden(int index) {
        return new Column(index, true);
    }

    /** Rows as text: NULL, numbers in plain notation, strings as UTF-8. */
    private static List<List<String>> text(MergedResponse r) {
        List<List<String>> out = new ArrayList<>();
        for (List<Object> row : r.rows()) {
            List<String> cells = new ArrayList<>();
            for (Object v : row) {
                cells.add(
                        v == null
                                ? "NULL"
                                : v instanceof byte[] b
                                        ? new String(b, UTF_8)
                                        : v instanceof BigDecimal d ? d.toPlainString() : v.toString());
            }
            out.add(cells);
        }
        return out;
    }

    private static List<List<String>> rows(String... rows) {
        List<List<String>> out = new ArrayList<>();
        for (String r : rows) {
            out.add(List.of(r.split("\\|", -1)));
        }
        return out;
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void ordersAcrossShardsAndDropsHiddenColumns(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        List<ColumnDefinition41> cols = List.of(varchar("name"), integer("id"));
        // SELECT name FROM t ORDER BY id DESC: id travels as a hidden column, NULL last when descending
        ByteBuf s1 = shards.resultSet(cols, List.of(row("e", 9L), row("c", 5L), row("a", 1L)));
        ByteBuf s2 = shards.resultSet(cols, List.of(row("f", 10L), row("d", 6L), row("n", null)));
        ByteBuf s3 = shards.resultSet(cols, List.of());
        MergeSpec spec = spec(List.of(new SortKey(hidden(0), true)), List.of(), List.of(), false, 1);

        MergedResponse r = merge(binary, deprecateEof, spec, -1, -1, s1, s2, s3);

        assertThat(r.columns()).extracting(ColumnDefinition41::name).containsExactly("name");
        assertThat(text(r)).isEqualTo(rows("f", "e", "d", "c", "a", "n"));
        assertThat(r.statusFlags()).isEqualTo(STATUS);
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void appliesOffsetAndCountAfterTheMerge(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        List<ColumnDefinition41> cols = List.of(integer("id"));
        // LIMIT 2, 3 was sent as LIMIT 5; NULL sorts first ascending
        ByteBuf s1 = shards.resultSet(cols, List.of(row(1L), row(4L), row(5L), row(8L), row(9L)));
        ByteBuf s2 = shards.resultSet(cols, List.of(row((Object) null), row(2L), row(3L), row(6L), row(7L)));
        MergeSpec spec =
                new MergeSpec(List.of(new SortKey(col(0), false)), List.of(), List.of(), false, 0, 1, 0, false);

        assertThat(text(merge(binary, deprecateEof, spec, 2, 3, s1, s2))).isEqualTo(rows("2", "3", "4"));
        assertThat(text(merge(binary, deprecateEof, spec, -1, 2, s1, s2))).isEqualTo(rows("NULL", "1"));
        assertThat(text(merge(binary, deprecateEof, spec, 9, 5, s1, s2))).isEqualTo(rows("9"));
        assertThat(merge(binary, deprecateEof, spec, 0, 0, s1, s2).rows()).isEmpty();
    }

    @Test
    void concatenatesInShardOrderWithoutOrderBy() {
        shards = new ShardResponses(false, false);
        List<ColumnDefinition41> cols = List.of(integer("id"), varchar("s"));
        ByteBuf s1 = shards.resultSet(cols, List.of(row(3L, "x"), row(1L, "y")), 1);
        ByteBuf s2 = shards.resultSet(cols, List.of(row(2L, null)), 2);

        MergedResponse r = merge(false, false, MergeSpec.CONCAT, -1, -1, s1, s2);
        assertThat(text(r)).isEqualTo(rows("3|x", "1|y", "2|NULL"));
        assertThat(r.warnings()).as("warnings summed").isEqualTo(3);
        assertThat(text(merge(false, false, MergeSpec.CONCAT, 1, 1, s1, s2))).isEqualTo(rows("1|y"));
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void combinesCountSumMinMaxWithoutGroupBy(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        List<ColumnDefinition41> cols = List.of(
                bigint("COUNT(*)"),
                decimal("SUM(d)", 34, 2),
                dbl("SUM(f)"),
                varchar("MIN(s)"),
                integer("MAX(i)"),
                weights("WEIGHT_STRING(MIN(s))"),
                weights("pad"));
        ByteBuf s1 =
                shards.resultSet(cols, List.of(withGeneralCiWeights(row(2L, new BigDecimal("1.25"), 0.5, "b", 7L), 3)));
        ByteBuf s2 = shards.resultSet(cols, List.of(withGeneralCiWeights(row(0L, null, null, null, null), 3)));
        ByteBuf s3 = shards.resultSet(
                cols, List.of(withGeneralCiWeights(row(3L, new BigDecimal("-3.50"), 0.25, "B", -2L), 3)));
        MergeSpec unweighed = spec(
                List.of(),
                List.of(),
                List.of(
                        new Aggregate(Function.COUNT, col(0), null),
                        new Aggregate(Function.SUM, col(1), null),
                        new Aggregate(Function.SUM, col(2), null),
                        new Aggregate(Function.MIN, col(3), null),
                        new Aggregate(Function.MAX, col(4), null)),
                false,
                2);
        MergeSpec spec = weighed(unweighed, weighedAt(col(3), 0));

        MergedResponse r = merge(binary, deprecateEof, spec, -1, -1, s1, s2, s3);
        // MIN over a _ci column: 'b' and 'B' are equal, the first seen wins
        assertThat(text(r)).isEqualTo(rows("5|-2.25|0.75|b|7"));
        assertThat(r.columns().get(1).decimals()).isEqualTo(2);
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void splitsAverageBackIntoMySqlsTypes(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        // SELECT AVG(i), AVG(d) AS ad, AVG(f) sent as SUM(i), SUM(d) AS ad, SUM(f), COUNT(i), COUNT(d), COUNT(f)
        List<ColumnDefinition41> cols = List.of(
                ShardResponses.column("SUM(i)", MySqlType.NEWDECIMAL, 63, 33, 0, 0),
                decimal("ad", 34, 2),
                dbl("SUM(f)"),
                bigint("COUNT(i)"),
                bigint("COUNT(d)"),
                bigint("COUNT(f)"));
        ByteBuf s1 = shards.resultSet(cols, List.of(row(new BigDecimal("4"), new BigDecimal("0.02"), 1.5, 2L, 2L, 2L)));
        ByteBuf s2 =
                shards.resultSet(cols, List.of(row(new BigDecimal("1"), new BigDecimal("0.00"), 0.25, 1L, 1L, 1L)));
        ByteBuf s3 = shards.resultSet(cols, List.of(row(null, null, null, 0L, 0L, 0L)));
        MergeSpec spec = spec(
                List.of(),
                List.of(),
                List.of(
                        new Aggregate(Function.AVG, col(0), hidden(0)),
                        new Aggregate(Function.AVG, col(1), hidden(1)),
                        new Aggregate(Function.AVG, col(2), hidden(2))),
                false,
                3);

        MergedResponse r = merge(binary, deprecateEof, spec, -1, -1, s1, s2, s3);
        // as MariaDB 11.4: AVG(INT) DECIMAL(14,4) length 16, AVG(DECIMAL(10,2)) DECIMAL(14,6), AVG(DOUBLE) DOUBLE
        assertThat(r.columns()).extracting(ColumnDefinition41::name).containsExactly("AVG(i)", "ad", "AVG(f)");
        assertThat(r.columns())
                .extracting(ColumnDefinition41::type)
                .containsExactly(MySqlType.NEWDECIMAL, MySqlType.NEWDECIMAL, MySqlType.DOUBLE);
        assertThat(r.columns()).extracting(ColumnDefinition41::decimals).containsExactly(4, 6, 31);
        assertThat(r.columns()).extracting(ColumnDefinition41::columnLength).containsExactly(16L, 16L, 23L);
        assertThat(r.columns())
                .as("AVG is BINARY even where the shard's SUM is not")
                .allMatch(c -> (c.flags() & ColumnFlags.BINARY_FLAG) != 0);
        // 5/3 and 0.02/3 round half away from zero at the scale
        assertThat(text(r)).isEqualTo(rows("1.6667|0.006667|0.5833333333333334"));
    }

    @Test
    void averageRoundsNegativeHalvesAwayFromZeroAndIsNullWithoutValues() {
        shards = new ShardResponses(false, false);
        List<ColumnDefinition41> cols = List.of(decimal("SUM(i)", 33, 0), bigint("COUNT(i)"));
        ByteBuf s1 = shards.resultSet(cols, List.of(row(new BigDecimal("-4"), 2L)));
        ByteBuf s2 = shards.resultSet(cols, List.of(row(new BigDecimal("-1"), 1L)));
        ByteBuf empty = shards.resultSet(cols, List.of(row(null, 0L)));
        MergeSpec spec = spec(List.of(), List.of(), List.of(new Aggregate(Function.AVG, col(0), hidden(0))), false, 1);

        assertThat(text(merge(false, false, spec, -1, -1, s1, s2))).isEqualTo(rows("-1.6667"));
        assertThat(text(merge(false, false, spec, -1, -1, empty, empty))).isEqualTo(rows("NULL"));
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void groupsCaseInsensitivelyAndSortsByTheKeysWithoutOrderBy(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        // SELECT k, COUNT(*), SUM(n) FROM t GROUP BY k
        List<ColumnDefinition41> cols = List.of(
                varchar("k"),
                bigint("COUNT(*)"),
                decimal("SUM(n)", 33, 0),
                weights("WEIGHT_STRING(k)"),
                weights("pad"));
        ByteBuf s1 = shards.resultSet(
                cols,
                List.of(
                        withGeneralCiWeights(row(null, 1L, new BigDecimal("4")), 0),
                        withGeneralCiWeights(row("b", 2L, new BigDecimal("3")), 0),
                        withGeneralCiWeights(row("é", 1L, null), 0)));
        ByteBuf s2 = shards.resultSet(
                cols,
                List.of(
                        withGeneralCiWeights(row("A ", 1L, new BigDecimal("-1")), 0),
                        withGeneralCiWeights(row("B", 1L, new BigDecimal("10")), 0)));
        ByteBuf s3 = shards.resultSet(
                cols,
                List.of(
                        withGeneralCiWeights(row("a", 2L, new BigDecimal("5")), 0),
                        withGeneralCiWeights(row("E", 1L, new BigDecimal("1")), 0)));
        MergeSpec spec = weighed(
                spec(
                        List.of(),
                        List.of(col(0)),
                        List.of(new Aggregate(Function.COUNT, col(1), null), new Aggregate(Function.SUM, col(2), null)),
                        false,
                        2),
                weighedAt(col(0), 0));

        MergedResponse r = merge(binary, deprecateEof, spec, -1, -1, s1, s2, s3);
        // 'A ' = 'a' (PAD SPACE, case-insensitive), 'é' = 'E' (accent-insensitive); the first seen spelling is kept
        assertThat(text(r)).isEqualTo(rows("NULL|1|4", "A |3|4", "b|3|13", "é|2|1"));
    }

    @Test
    void groupsBinaryCollationsByBytesAndKeysNotSelected() {
        shards = new ShardResponses(false, true);
        // SELECT COUNT(*) FROM t GROUP BY k ORDER BY COUNT(*) DESC: k hidden, utf8mb4_bin
        List<ColumnDefinition41> cols =
                List.of(bigint("COUNT(*)"), varcharBin("k"), weights("WEIGHT_STRING(k)"), weights("pad"));
        byte[] pad = ShardResponses.pad("utf8mb4_bin", ShardResponses.bin("  "));
        ByteBuf s1 = shards.resultSet(
                cols, List.of(row(1L, "a", ShardResponses.bin("a"), pad), row(5L, "b", ShardResponses.bin("b"), pad)));
        ByteBuf s2 = shards.resultSet(
                cols,
                List.of(row(2L, "A", ShardResponses.bin("A"), pad), row(1L, "a ", ShardResponses.bin("a "), pad)));
        MergeSpec spec = weighed(
                spec(
                        List.of(new SortKey(col(0), true)),
                        List.of(hidden(0)),
                        List.of(new Aggregate(Function.COUNT, col(0), null)),
                        false,
                        3),
                weighedAt(hidden(0), 1));

        MergedResponse r = merge(false, true, spec, -1, -1, s1, s2);
        // 'a' and 'a ' are one group (PAD SPACE), 'A' another
        assertThat(text(r)).isEqualTo(rows("5", "2", "2"));
        assertThat(r.columns()).hasSize(1);
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void distinctThenOrderThenLimit(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        List<ColumnDefinition41> cols =
                List.of(varchar("s"), decimal("d", 12, 2), weights("WEIGHT_STRING(s)"), weights("pad"));
        ByteBuf s1 = shards.resultSet(
                cols,
                List.of(
                        withGeneralCiWeights(row("x", new BigDecimal("1.00")), 0),
                        withGeneralCiWeights(row("y", new BigDecimal("2.50")), 0),
                        withGeneralCiWeights(row("x", null), 0)));
        ByteBuf s2 = shards.resultSet(
                cols,
                List.of(
                        withGeneralCiWeights(row("X", new BigDecimal("1.00")), 0),
                        withGeneralCiWeights(row("z", new BigDecimal("-2.50")), 0),
                        withGeneralCiWeights(row("x", null), 0)));
        MergeSpec spec = weighed(
                new MergeSpec(
                        List.of(new SortKey(col(1), false), new SortKey(col(0), true)),
                        List.of(),
                        List.of(),
                        true,
                        0,
                        1,
                        2,
                        false),
                weighedAt(col(0), 0));

        MergedResponse r = merge(binary, deprecateEof, spec, 0, 10, s1, s2);
        assertThat(text(r)).isEqualTo(rows("x|NULL", "z|-2.50", "x|1.00", "y|2.50"));
        assertThat(text(merge(binary, deprecateEof, spec, 1, 2, s1, s2))).isEqualTo(rows("z|-2.50", "x|1.00"));
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void aggregatesOverNoRowsGiveOneRowOfZeroAndNulls(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        List<ColumnDefinition41> cols = List.of(bigint("COUNT(*)"), decimal("SUM(n)", 33, 0), integer("MAX(n)"));
        ByteBuf s1 = shards.resultSet(cols, List.of());
        ByteBuf s2 = shards.resultSet(cols, List.of());
        MergeSpec spec = spec(
                List.of(),
                List.of(),
                List.of(
                        new Aggregate(Function.COUNT, col(0), null),
                        new Aggregate(Function.SUM, col(1), null),
                        new Aggregate(Function.MAX, col(2), null)),
                false,
                0);

        assertThat(text(merge(binary, deprecateEof, spec, -1, -1, s1, s2))).isEqualTo(rows("0|NULL|NULL"));
        MergeSpec grouped = spec(List.of(), List.of(col(2)), spec.aggregates().subList(0, 2), false, 0);
        assertThat(merge(binary, deprecateEof, grouped, -1, -1, s1, s2).rows()).isEmpty();
    }

    @Test
    void relaysCellsTheMergeDoesNotComputeByteForByte() {
        shards = new ShardResponses(false, false);
        // a DOUBLE(10,3) column's text keeps the server's own formatting
        List<ColumnDefinition41> cols = List.of(ShardResponses.column("f", MySqlType.DOUBLE, 63, 10, 0, 3));
        List<ColumnDefinition41> asText = List.of(varchar("f"));
        ByteBuf s1 = shards.resultSet(cols, asText, List.of(row("1.500")), 0);
        ByteBuf s2 = shards.resultSet(cols, asText, List.of(row("0.250")), 0);
        MergeSpec spec = spec(List.of(new SortKey(col(0), false)), List.of(), List.of(), false, 0);

        MergedResponse r = merge(false, false, spec, -1, -1, s1, s2);
        assertThat(r.rawRows())
                .extracting(b -> new String(b, 1, b.length - 1, UTF_8))
                .containsExactly("0.250", "1.500");
    }

    @ParameterizedTest(name = "binary={0} deprecateEof={1}")
    @MethodSource("protocols")
    void countsDistinctValuesAcrossShardsAsTheCollationComparesThem(boolean binary, boolean deprecateEof) {
        shards = new ShardResponses(binary, deprecateEof);
        // SELECT COUNT(DISTINCT s) FROM t, sent as ... , s GROUP BY s; s is utf8mb4_general_ci
        List<ColumnDefinition41> cols =
                List.of(bigint("COUNT(DISTINCT s)"), varchar("s"), weights("WEIGHT_STRING(s)"), weights("pad"));
        ByteBuf s1 = shards.resultSet(
                cols,
                List.of(
                        withGeneralCiWeights(row(0L, null), 1),
                        withGeneralCiWeights(row(1L, "apple"), 1),
                        withGeneralCiWeights(row(1L, "banana"), 1)));
        ByteBuf s2 = shards.resultSet(
                cols, List.of(withGeneralCiWeights(row(1L, "APPLE "), 1), withGeneralCiWeights(row(1L, "cherry"), 1)));
        ByteBuf none = shards.resultSet(cols, List.of());
        MergeSpec spec = weighed(
                spec(
                        List.of(),
                        List.of(),
                        List.of(new Aggregate(Function.COUNT_DISTINCT, col(0), hidden(0))),
                        false,
                        3),
                weighedAt(hidden(0), 1));

        assertThat(text(merge(binary, deprecateEof, spec, -1, -1, s1, s2))).isEqualTo(rows("3"));
        assertThat(text(merge(binary, deprecateEof, spec, -1, -1, none, none)))
                .as("over no rows: one row, 0")
                .isEqualTo(rows("0"));
    }

    @Test
    void ordersByWeightsWithPadSpaceSoATabSortsBeforeTheEnd() {
        shards = new ShardResponses(false, true);
        // SELECT s FROM t ORDER BY s, utf8mb4_general_ci: 'a' is compared as 'a ' padded, and TAB < ' '
        List<ColumnDefinition41> cols = List.of(varchar("s"), weights("WEIGHT_STRING(s)"), weights("pad"));
        ByteBuf s1 =
                shards.resultSet(cols, List.of(withGeneralCiWeights(row("a\t"), 0), withGeneralCiWeights(row("b"), 0)));
        ByteBuf s2 = shards.resultSet(cols, List.of(withGeneralCiWeights(row("a"), 0)));
        MergeSpec spec = weighed(
                spec(List.of(new SortKey(col(0), false)), List.of(), List.of(), false, 2), weighedAt(col(0), 0));

        assertThat(text(merge(false, true, spec, -1, -1, s2, s1))).isEqualTo(rows("a\t", "a", "b"));
    }

    @Test
    void refusesToCompareStringsWithoutTheirWeights() {
        shards = new ShardResponses(false, true);
        // SELECT DISTINCT CONCAT(s, 'x') FROM t: an expression with a literal gets no weights
        List<ColumnDefinition41> cols = List.of(varchar("CONCAT(s, 'x')"));
        ByteBuf s1 = shards.resultSet(cols, List.of(row("ax")));
        ByteBuf s2 = shards.resultSet(cols, List.of(row("AX")));
        MergeSpec spec = spec(List.of(), List.of(), List.of(), true, 0);

        assertThatThrownBy(() -> merge(false, true, spec, -1, -1, s1, s2))
                .isInstanceOfSatisfying(
                        MergeException.class, e -> assertThat(e.toErr().code()).isEqualTo(1235))
                .hasMessageContaining("without their collation weights");
    }

    @Test
    void refusesValuesOfDifferentCollationsInOneColumn() {
        shards = new ShardResponses(false, true);
        // a UNION whose SELECTs read columns of two collations with the same pad
        List<ColumnDefinition41> cols = List.of(varchar("s"), weights("WEIGHT_STRING(s)"), weights("pad"));
        ByteBuf s1 = shards.resultSet(cols, List.of(withGeneralCiWeights(row("a"), 0)));
        ByteBuf s2 = shards.resultSet(
                cols,
                List.of(row("b", ShardResponses.generalCi("B"), ShardResponses.pad("utf8mb4_unicode_ci", new byte[] {
                    2, 9, 2, 9
                }))));
        MergeSpec spec = weighed(spec(List.of(), List.of(), List.of(), true, 2), weighedAt(col(0), 0));

        assertThatThrownBy(() -> merge(false, true, spec, -1, -1, s1, s2))
                .isInstanceOf(MergeException.class)
                .hasMessageContaining("collations utf8mb4_general_ci and utf8mb4_unicode_ci");
    }

    @Test
    void listsTableNamesInByteOrderAsTheServerDoes() {
        shards = new ShardResponses(false, true);
        // SHOW TABLES over two shards: MariaDB lists names in byte order, 'B2' before '_x' before 'a'
        List<ColumnDefinition41> cols = List.of(varchar("Tables_in_shop"));
        ByteBuf s1 = shards.resultSet(cols, List.of(row("B2"), row("a")));
        ByteBuf s2 = shards.resultSet(cols, List.of(row("_x"), row("a")));
        MergeSpec spec = spec(List.of(new SortKey(col(0), false)), List.of(), List.of(), true, 0)
                .comparingNamesByBytes();

        assertThat(text(merge(false, true, spec, -1, -1, s1, s2))).isEqualTo(rows("B2", "_x", "a"));
    }

    @Test
    void sumsAndAveragesDistinctValuesPerGroup() {
        shards = new ShardResponses(false, false);
        // SELECT g, SUM(DISTINCT d), AVG(DISTINCT d) FROM t GROUP BY g, sent with d hidden and grouped
        List<ColumnDefinition41> cols = List.of(
                integer("g"),
                decimal("SUM(DISTINCT d)", 34, 2),
                decimal("AVG(DISTINCT d)", 16, 6),
                decimal("d", 12, 2));
        ByteBuf s1 = shards.resultSet(
                cols,
                List.of(
                        row(1L, new BigDecimal("1.50"), new BigDecimal("1.500000"), new BigDecimal("1.50")),
                        row(1L, new BigDecimal("2.00"), new BigDecimal("2.000000"), new BigDecimal("2.00")),
                        row(2L, null, null, null)));
        ByteBuf s2 = shards.resultSet(
                cols,
                List.of(
                        row(1L, new BigDecimal("1.50"), new BigDecimal("1.500000"), new BigDecimal("1.50")),
                        row(1L, new BigDecimal("3.25"), new BigDecimal("3.250000"), new BigDecimal("3.25"))));
        MergeSpec spec = spec(
                List.of(),
                List.of(col(0)),
                List.of(
                        new Aggregate(Function.SUM_DISTINCT, col(1), hidden(0)),
                        new Aggregate(Function.AVG_DISTINCT, col(2), hidden(0))),
                false,
                1);

        assertThat(text(merge(false, false, spec, -1, -1, s1, s2))).isEqualTo(rows("1|6.75|2.250000", "2|NULL|NULL"));
    }

    @Test
    void firstErrWinsEvenAfterRows() {
        shards = new ShardResponses(false, false);
        List<ColumnDefinition41> cols = List.of(integer("id"));
        ByteBuf ok = shards.resultSet(cols, List.of(row(1L)));
        ByteBuf midResult = shards.resultSetThenErr(
                cols, List.of(row(2L)), new ErrPacket(1317, "70100", "Query execution was interrupted"));
        ByteBuf err = shards.err(1146, "42S02", "Table 'db.t' doesn't exist");

        MergedResponse r = merge(false, false, MergeSpec.CONCAT, -1, -1, ok, midResult, err);
        assertThat(r.err()).isEqualTo(new ErrPacket(1317, "70100", "Query execution was interrupted"));
        assertThat(merge(false, false, MergeSpec.CONCAT, -1, -1, err, midResult)
                        .err()
                        .code())
                .isEqualTo(1146);
    }

    @Test
    void mergesOkPackets() {
        shards = new ShardResponses(false, false);
        ByteBuf a = shards.ok(3, 0, 1, "Rows matched: 3  Changed: 3  Warnings: 0");
        ByteBuf b = shards.ok(4, 17, 2, "Rows matched: 4  Changed: 4  Warnings: 0");
        ByteBuf c = shards.ok(0, 21, 0, "");

        MergedResponse summed = merge(false, false, MergeSpec.AFFECTED_ROWS, -1, -1, a, b, c);
        assertThat(summed.ok().affectedRows()).isEqualTo(7);
        assertThat(summed.ok().lastInsertId()).isEqualTo(17);
        assertThat(summed.ok().warnings()).isEqualTo(3);
        assertThat(summed.ok().statusFlags()).isEqualTo(STATUS);
        assertThat(summed.ok().info()).as("different info strings are dropped").isEmpty();

        ByteBuf d = shards.ok(2, 0, 0, "same");
        ByteBuf e = shards.ok(2, 0, 0, "same");
        MergedResponse copies = merge(false, false, MergeSpec.CONCAT, -1, -1, d, e);
        assertThat(copies.ok().affectedRows())
                .as("a write to every copy counts once")
                .isEqualTo(2);
        assertThat(copies.ok().info()).isEqualTo("same");
    }

    @Test
    void ordersNoEnumColumnButGroupsItByText() {
        shards = new ShardResponses(false, false);
        // ENUM('b','a'): MySQL sorts 'b' first (its index), which the rows do not say
        List<ColumnDefinition41> cols = List.of(ShardResponses.column(
                "e", MySqlType.STRING, ShardResponses.UTF8MB4_GENERAL_CI, 4, ColumnFlags.ENUM_FLAG, 0));
        ByteBuf s1 = shards.resultSet(cols, List.of(row("a"), row("b")));
        ByteBuf s2 = shards.resultSet(cols, List.of(row("b")));

        assertThatThrownBy(() -> merge(
                        false,
                        false,
                        spec(List.of(new SortKey(col(0), false)), List.of(), List.of(), false, 0),
                        -1,
                        -1,
                        s1,
                        s2))
                .isInstanceOf(MergeException.class)
                .hasMessageContaining("ENUM or SET column")
                .satisfies(e -> assertThat(((MergeException) e).toErr().code()).isEqualTo(1235));
        MergeSpec distinct = spec(List.of(), List.of(), List.of(), true, 0);
        assertThat(text(merge(false, false, distinct, -1, -1, s1, s2)))
                .containsExactlyInAnyOrderElementsOf(rows("a", "b"));
    }

    @Test
    void refusesShardsThatDisagreeInShape() {
        shards = new ShardResponses(false, false);
        ByteBuf one = shards.resultSet(List.of(integer("a")), List.of(row(1L)));
        ByteBuf two = shards.resultSet(List.of(integer("a"), integer("b")), List.of(row(1L, 2L)));
        ByteBuf text = shards.resultSet(List.of(varchar("a")), List.of(row("x")));
        ByteBuf ok = shards.ok(1, 0, 0, "");

        assertThatThrownBy(() -> ShardResultMerger.merge(
                        ShardResponses.ALLOC, List.of(one, two), MergeSpec.CONCAT, -1, -1, false, false, 2))
                .isInstanceOf(MergeException.class)
                .hasMessage("shard 1 returned 1 columns, shard 2 returned 2");
        assertThatThrownBy(() -> ShardResultMerger.merge(
                        ShardResponses.ALLOC, List.of(one, text), MergeSpec.CONCAT, -1, -1, false, false, 2))
                .hasMessage("column 1 is LONG on shard 1 but VAR_STRING on shard 2");
        assertThatThrownBy(() -> ShardResultMerger.merge(
                        ShardResponses.ALLOC, List.of(one, ok), MergeSpec.CONCAT, -1, -1, false, false, 2))
                .hasMessage("shard 1 answered a result set but shard 2 OK");
        // the same bytes read as DEPRECATE_EOF: the EOF after the definitions is taken as a row
        assertThatThrownBy(() -> ShardResultMerger.merge(
                        ShardResponses.ALLOC, List.of(one, one), MergeSpec.CONCAT, -1, -1, true, false, 2))
                .isInstanceOf(MergeException.class)
                .hasMessageContaining("shard 1");
        ByteBuf truncated = one.retainedSlice(0, one.readableBytes() - 3);
        try {
            assertThatThrownBy(() -> ShardResultMerger.merge(
                            ShardResponses.ALLOC, List.of(one, truncated), MergeSpec.CONCAT, -1, -1, false, false, 2))
                    .hasMessage("shard 2's response ends inside a packet");
        } finally {
            truncated.release();
        }
    }

    @Test
    void joinsAndSplitsRowsOf16MiB() {
        shards = new ShardResponses(false, true);
        List<ColumnDefinition41> cols =
                List.of(integer("id"), ShardResponses.column("b", MySqlType.BLOB, 63, 1L << 32, 0, 0));
        byte[] big = new byte[(1 << 24) + 10];
        big[big.length - 1] = 7;
        ByteBuf s1 = shards.resultSet(cols, List.of(row(2L, big)));
        ByteBuf s2 = shards.resultSet(cols, List.of(row(1L, new byte[] {1})));
        MergeSpec spec = spec(List.of(new SortKey(col(0), false)), List.of(), List.of(), false, 0);

        MergedResponse r = merge(false, true, spec, -1, -1, s1, s2);
        assertThat(r.rows()).hasSize(2);
        assertThat((byte[]) r.rows().get(1).get(1)).isEqualTo(big);
    }
}
