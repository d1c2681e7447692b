package io.shardgate.it.merge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import io.shardgate.merge.MergeException;
import io.shardgate.merge.ShardResultMerger;
import io.shardgate.merge.StreamingMerge;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.plan.MergeSpec;
import io.shardgate.sharding.plan.MergeSpec.Function;
import io.shardgate.sharding.plan.Plan;
import io.shardgate.sharding.plan.Planner;
import io.shardgate.sharding.plan.Route;
import io.shardgate.sharding.plan.Target;
import io.shardgate.sharding.plan.Targets;
import io.shardgate.sharding.plan.Values;
import io.shardgate.sharding.rule.KeyValues;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.text.Normalizer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Differential test of the multi-shard merge against one real MariaDB: database {@code ref} holds
 * every row of table {@code t}, {@code s1..s3} a partition of them. Each statement of
 * {@link MergeCorpus} is planned by the real {@link Planner} with {@code t} hash-sharded over three
 * hostgroups; the plan's scatter SQL runs on s1..s3 over raw protocol connections (text, and
 * binary through prepared statements for every third statement; CLIENT_DEPRECATE_EOF on and off),
 * {@link ShardResultMerger} merges the captured responses, and the merged column metadata and rows
 * must equal the original statement's response on {@code ref}.
 *
 * <p>Rows compare in order when the corpus marks the ORDER BY unique, else as multisets. Where
 * MySQL may return any of several strings equal under the collation (GROUP BY, DISTINCT, MIN/MAX of
 * a string column), such cells compare as the collation does: trailing spaces ignored (PAD SPACE)
 * and, for _ci collations, case and accents too.
 */
class ShardMergeIT {
    private static final long SEED = 20261122L;
    private static final int ROWS = 300;
    private static final int SHARDS = 3;
    private static final String USER = "merge";
    private static final String PASSWORD = "merge-pw";
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private static final String RULES = """
            hostgroups: [1, 2, 3]
            schemas:
              - name: app
                default_hostgroup: 1
                tables:
                  - {name: t, strategy: hash, column: id, buckets: 3, hostgroups: {1: "0", 2: "1", 3: "2"}}
                  - {name: items, strategy: hash, column: t_id, buckets: 3, hostgroups: {1: "0", 2: "1", 3: "2"}}
                binding_groups: [[t, items]]
            """;
    private static final String TABLE = "CREATE TABLE t (id INT PRIMARY KEY, grp INT NULL,"
            + " s VARCHAR(20) COLLATE utf8mb4_general_ci NULL, b VARCHAR(20) COLLATE utf8mb4_bin NULL,"
            + " d DECIMAL(10,2) NULL, f DOUBLE NULL, dt DATE NULL, ts DATETIME(3) NULL, big BIGINT NULL,"
            + " u INT UNSIGNED NULL) DEFAULT CHARSET=utf8mb4";

    private static MariaDbServer server;
    private static RuleSnapshot rules;
    /** [deprecateEof ? 1 : 0][0 = ref, 1..3 = s1..s3] */
    private static final CapturingClient[][] clients = new CapturingClient[2][SHARDS + 1];

    @BeforeAll
    static void start() throws Exception {
        server = MariaDbServer.builder().database("ref").user(USER, PASSWORD).start();
        try (Connection c = Driver.MARIADB.connect(server.port(), "ref", USER, PASSWORD);
                Statement st = c.createStatement()) {
            for (int s = 1; s <= SHARDS; s++) {
                st.execute("CREATE DATABASE s" + s);
            }
            for (String db : List.of("ref", "s1", "s2", "s3")) {
                st.execute(TABLE.replace("CREATE TABLE t", "CREATE TABLE " + db + ".t"));
                st.execute("CREATE TABLE " + db + ".items (id INT PRIMARY KEY, t_id INT NOT NULL, qty INT NULL)");
            }
            load(c);
        }
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode doc = yaml.readTree(RULES);
        List<JsonNode> schemas = new ArrayList<>();
        doc.path("schemas").forEach(schemas::add);
        rules = RuleSnapshot.parse(1, List.of(1, 2, 3), schemas, List.of());
        for (int eof = 0; eof < 2; eof++) {
            for (int i = 0; i <= SHARDS; i++) {
                clients[eof][i] = new CapturingClient(
                        server.host(), server.port(), USER, PASSWORD, i == 0 ? "ref" : "s" + i, eof == 1, ALLOC);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (CapturingClient[] set : clients) {
            for (CapturingClient c : set) {
                if (c != null) {
                    c.close();
                }
            }
        }
        if (server != null) {
            server.close();
        }
    }

    /** Rows with NULLs, duplicates, case variants, trailing spaces, negatives, decimals, doubles, dates. */
    private static void load(Connection c) throws Exception {
        Random r = new Random(SEED);
        String[] strings = {
            "apple", "Apple", "APPLE ", "banana", "Banana  ", "cherry", "é", "E", "e ", "zeta", "", " lead"
        };
        String[] bins = {"x", "X", "x ", "y", "Y", "ab", "aB"};
        for (int id = 1; id <= ROWS; id++) {
            String shard = "s" + (id % SHARDS + 1);
            for (String db : List.of("ref", shard)) {
                try (PreparedStatement p =
                        c.prepareStatement("INSERT INTO " + db + ".t VALUES (?,?,?,?,?,?,?,?,?,?)")) {
                    Random v = new Random(SEED * 31 + id); // the same values in ref and in the shard
                    p.setInt(1, id);
                    p.setObject(2, v.nextInt(10) == 0 ? null : v.nextInt(10) - 3);
                    p.setObject(3, v.nextInt(10) == 0 ? null : strings[v.nextInt(strings.length)]);
                    p.setObject(4, v.nextInt(10) == 0 ? null : bins[v.nextInt(bins.length)]);
                    p.setObject(5, v.nextInt(10) == 0 ? null : BigDecimal.valueOf(v.nextInt(60) * 1725L - 50000, 2));
                    p.setObject(6, v.nextInt(10) == 0 ? null : (v.nextInt(81) - 40) * 0.25); // exact in binary
                    p.setObject(
                            7,
                            v.nextInt(10) == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(v.nextInt(20)));
                    p.setObject(
                            8,
                            v.nextInt(10) == 0
                                    ? null
                                    : LocalDateTime.of(2024, 1, 1, 0, 0)
                                            .plusSeconds(v.nextInt(100_000))
                                            .plusNanos(v.nextInt(1000) * 1_000_000L));
                    p.setObject(9, v.nextInt(10) == 0 ? null : v.nextLong() % 1_000_000_000_000L);
                    p.setObject(10, v.nextInt(10) == 0 ? null : (long) v.nextInt(Integer.MAX_VALUE) * 2);
                    p.executeUpdate();
                }
            }
        }
        r.nextInt();
        // items of a row of t live on the shard of that row (t_id placed as t's id): a binding group
        Random items = new Random(SEED + 7);
        for (int id = 1; id <= 400; id++) {
            int tId = 1 + items.nextInt(ROWS + 20); // some point at no row of t
            Object qty = items.nextInt(8) == 0 ? null : items.nextInt(20);
            for (String db : List.of("ref", "s" + (tId % SHARDS + 1))) {
                try (PreparedStatement p = c.prepareStatement("INSERT INTO " + db + ".items VALUES (?,?,?)")) {
                    p.setInt(1, id);
                    p.setInt(2, tId);
                    p.setObject(3, qty);
                    p.executeUpdate();
                }
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> mergedResultsEqualTheUnshardedServer() {
        List<MergeCorpus.Query> corpus = new ArrayList<>(MergeCorpus.handWritten());
        corpus.addAll(MergeCorpus.generated(SEED, 200));
        corpus.addAll(MergeCorpus.generatedDistinctAggregates(SEED + 1, 80));
        corpus.addAll(MergeCorpus.generatedHaving(SEED + 2, 100));
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < corpus.size(); i++) {
            MergeCorpus.Query q = corpus.get(i);
            boolean deprecateEof = i % 2 == 1;
            tests.add(DynamicTest.dynamicTest(
                    "text eof=" + !deprecateEof + ": " + q.sql(), () -> compare(q, false, deprecateEof)));
            if (i % 3 == 0) {
                tests.add(DynamicTest.dynamicTest(
                        "binary eof=" + deprecateEof + ": " + q.sql(), () -> compare(q, true, !deprecateEof)));
            }
        }
        return tests.stream();
    }

    /**
     * Writes on every shard: OK packets merge into the reference's affected rows and warnings. Each
     * UPDATE runs twice so the rows end as they began.
     */
    @TestFactory
    Stream<DynamicTest> mergedOkPacketsEqualTheUnshardedServer() {
        List<String> writes = List.of(
                "UPDATE t SET big = -big WHERE grp = 2",
                "UPDATE t SET big = -big WHERE grp = 2",
                "UPDATE t SET u = u WHERE grp = 1",
                "UPDATE t SET d = d * 2 WHERE s = 'apple'",
                "UPDATE t SET d = d / 2 WHERE s = 'apple'",
                "DELETE FROM t WHERE grp > 100",
                "UPDATE t SET nosuch = 1 WHERE grp = 1");
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < writes.size(); i++) {
            boolean deprecateEof = i % 2 == 0;
            String sql = writes.get(i);
            tests.add(DynamicTest.dynamicTest(sql, () -> compareWrite(sql, deprecateEof)));
        }
        return tests.stream();
    }

    private void compareWrite(String sql, boolean deprecateEof) throws Exception {
        CapturingClient[] set = clients[deprecateEof ? 1 : 0];
        Digest digest = Digest.of(sql);
        Plan plan = new Planner().plan(digest, "app", rules);
        assertThat(plan.route()).as("plan of %s: %s", sql, plan.describe()).isInstanceOf(Route.Scatter.class);
        Values values = Values.of(digest);
        Targets targets = plan.targets(values, rules);
        List<ByteBuf> responses = new ArrayList<>();
        ByteBuf expected = null;
        ByteBuf merged = null;
        try {
            for (Target target : targets.targets()) {
                responses.add(set[target.hostgroup()].query(
                        plan.sql(targets, target, values).sql()));
            }
            expected = set[0].query(sql);
            merged = ShardResultMerger.merge(ALLOC, responses, plan.merge(), -1, -1, false, deprecateEof, 0x0002);
            DecodedResponse want = DecodedResponse.decode(expected, false, deprecateEof);
            DecodedResponse got = DecodedResponse.decode(merged, false, deprecateEof);
            assertThat(got.err()).as(sql).isEqualTo(want.err());
            assertThat(got.ok()).as(sql).isEqualTo(want.ok());
        } finally {
            responses.forEach(ByteBuf::release);
            if (expected != null) {
                expected.release();
            }
            if (merged != null) {
                merged.release();
            }
        }
    }

    private void compare(MergeCorpus.Query q, boolean binary, boolean deprecateEof) throws Exception {
        CapturingClient[] set = clients[deprecateEof ? 1 : 0];
        Digest digest = Digest.of(q.sql());
        Plan plan = new Planner().plan(digest, "app", rules);
        assertThat(plan.route()).as("plan of %s: %s", q.sql(), plan.describe()).isInstanceOf(Route.Scatter.class);
        Values values = Values.of(digest);
        Targets targets = plan.targets(values, rules);
        assertThat(targets.targets()).hasSize(SHARDS);
        MergeSpec spec = plan.merge().resolve(values);
        long offset = spec.offset() < 0 ? -1 : KeyValues.toInteger(values.scalar(spec.offset()));
        long count = spec.count() < 0 ? -1 : KeyValues.toInteger(values.scalar(spec.count()));

        List<ByteBuf> responses = new ArrayList<>();
        ByteBuf expected = null;
        ByteBuf merged = null;
        try {
            for (Target target : targets.targets()) {
                String sql = plan.sql(targets, target, values).sql();
                CapturingClient shard = set[target.hostgroup()];
                responses.add(binary ? shard.execute(sql) : shard.query(sql));
            }
            expected = binary ? set[0].execute(q.sql()) : set[0].query(q.sql());
            DecodedResponse want = DecodedResponse.decode(expected, binary, deprecateEof);
            try {
                merged = ShardResultMerger.merge(ALLOC, responses, spec, offset, count, binary, deprecateEof, 0x0002);
            } catch (MergeException e) {
                // the session answers the client with this ERR (ORDER BY 3 of two columns: 1054, as MariaDB)
                io.shardgate.protocol.packet.ErrPacket err = e.toErr();
                assertThat(err.code() + " " + err.message()).as(q.sql()).isEqualTo(want.err());
                return;
            }
            DecodedResponse got = DecodedResponse.decode(merged, binary, deprecateEof);
            String context = q.sql() + "\nplan: " + plan.describe();
            assertThat(got.err()).as(context).isEqualTo(want.err());
            assertThat(got.columns()).as(context).isEqualTo(want.columns());
            boolean collapses = spec.distinct()
                    || !spec.groupBy().isEmpty()
                    || spec.aggregates().stream()
                            .anyMatch(a -> a.function() == Function.MIN || a.function() == Function.MAX);
            List<List<String>> gotRows = canonical(got, collapses);
            List<List<String>> wantRows = canonical(want, collapses);
            if (!q.ordered()) {
                Comparator<List<String>> byText = Comparator.comparing(Object::toString);
                gotRows.sort(byText);
                wantRows.sort(byText);
            }
            assertThat(gotRows)
                    .as(context + "\nexpected:\n" + want + "\nmerged:\n" + got)
                    .isEqualTo(wantRows);
            if (StreamingMerge.streams(spec)) {
                // the streamed merge, fed the same responses cut at random places, answers the same
                ByteBuf bytes = streamed(
                        responses,
                        spec,
                        offset,
                        count,
                        binary,
                        deprecateEof,
                        q.sql().hashCode());
                try {
                    DecodedResponse streamed = DecodedResponse.decode(bytes, binary, deprecateEof);
                    assertThat(streamed.err()).as(context).isEqualTo(want.err());
                    assertThat(streamed.columns()).as(context).isEqualTo(want.columns());
                    List<List<String>> streamedRows = canonical(streamed, collapses);
                    if (!q.ordered()) {
                        streamedRows.sort(Comparator.comparing(Object::toString));
                    }
                    assertThat(streamedRows)
                            .as(context + "\nexpected:\n" + want + "\nstreamed:\n" + streamed)
                            .isEqualTo(wantRows);
                } finally {
                    bytes.release();
                }
            }
        } finally {
            responses.forEach(ByteBuf::release);
            if (expected != null) {
                expected.release();
            }
            if (merged != null) {
                merged.release();
            }
        }
    }

    /**
     * The {@link StreamingMerge} answer to the shards' responses, fed in random chunks in random shard
     * order as the network would deliver them; the caller releases the returned buffer.
     */
    private static ByteBuf streamed(
            List<ByteBuf> responses,
            MergeSpec spec,
            long offset,
            long count,
            boolean binary,
            boolean deprecateEof,
            long seed) {
        Random random = new Random(seed);
        StreamingMerge merge = new StreamingMerge(
                ALLOC, responses.size(), spec, offset, count, binary, deprecateEof, 64L * 1024 * 1024);
        ByteBuf out = ALLOC.buffer();
        int[] at = new int[responses.size()];
        try {
            boolean open = true;
            while (open) {
                open = false;
                int s = random.nextInt(responses.size());
                for (int i = 0; i < responses.size(); i++, s = (s + 1) % responses.size()) {
                    if (at[s] < responses.get(s).writerIndex()) {
                        int n = Math.min(
                                1 + random.nextInt(2048), responses.get(s).writerIndex() - at[s]);
                        merge.addAndRelease(s, responses.get(s).retainedSlice(at[s], n));
                        at[s] += n;
                        open = true;
                        break;
                    }
                }
                ByteBuf next;
                while ((next = merge.poll(4096, !open, 0x0002)) != null) {
                    out.writeBytes(next);
                    next.release();
                }
            }
            assertThat(merge.complete()).isTrue();
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        } finally {
            merge.close();
        }
    }

    /** Rows with strings of _ci columns folded when MySQL may return any of several equal ones. */
    private static List<List<String>> canonical(DecodedResponse r, boolean collapses) {
        List<List<String>> rows = new ArrayList<>();
        for (List<String> row : r.rows()) {
            List<String> cells = new ArrayList<>(row);
            for (int i = 0; collapses && i < cells.size(); i++) {
                String cell = cells.get(i);
                switch (cell == null
                        ? DecodedResponse.Folding.NONE
                        : r.folding().get(i)) {
                    case TRAILING_SPACES -> cells.set(i, cell.stripTrailing());
                    case CASE_ACCENTS_AND_TRAILING_SPACES -> cells.set(i, fold(cell));
                    case NONE -> {}
                }
            }
            rows.add(cells);
        }
        return rows;
    }

    private static String fold(String s) {
        String stripped =
                Normalizer.normalize(s.stripTrailing(), Normalizer.Form.NFD).replaceAll("\\p{M}", "");
        return stripped.toUpperCase(Locale.ROOT);
    }
}
