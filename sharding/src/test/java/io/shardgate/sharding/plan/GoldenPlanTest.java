package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.Rules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Golden planner tests: each {@code src/test/resources/plans/*.json} file lists statements of one
 * family with the plan, targets and per-target SQL they must produce under {@code rules/shop.yaml}.
 * A mismatch writes the actual file to {@code target/golden-actual/} and prints the {@code cp}
 * command; {@code -Dgolden.update=true} rewrites the files in place (review with {@code git diff});
 * {@code -Dgolden.case=TEXT} runs only cases whose comment contains TEXT and prints debug output.
 */
class GoldenPlanTest {
    private static final Path DIR = Paths.get("src/test/resources/plans");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT);
    private static final RuleSnapshot RULES = Rules.resource("shop.yaml", 1);
    /** The first key a golden case's INSERT gets generated. */
    private static final long GENERATED_FROM = 1001;

    /** One golden case; unknown fields fail the parse. */
    @JsonPropertyOrder({"comment", "schema", "sql", "params", "skip", "plan", "error"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Case(
            String comment,
            String schema,
            String sql,
            List<Object> params,
            Boolean skip,
            ObjectNode plan,
            String error) {}

    @TestFactory
    Stream<DynamicTest> goldenFiles() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(DIR)) {
            files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> check(f)));
    }

    private static void check(Path file) throws IOException {
        List<Case> cases = JSON.readValue(file.toFile(), new TypeReference<List<Case>>() {});
        String only = System.getProperty("golden.case");
        List<Case> actual = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Case c : cases) {
            Objects.requireNonNull(c.sql(), "case without sql: " + c.comment());
            if (only != null && (c.comment() == null || !c.comment().contains(only))) {
                actual.add(c);
                continue;
            }
            Case got = run(c);
            if (only != null) {
                System.out.println(c.comment() + "\n  digest: "
                        + Digest.of(c.sql()).text() + "\n  " + JSON.writeValueAsString(got));
            }
            boolean same = Objects.equals(got.plan(), c.plan()) && Objects.equals(got.error(), c.error());
            if (Boolean.TRUE.equals(c.skip())) {
                if (same) {
                    failures.add("skipped case now passes, remove \"skip\": " + c.comment());
                }
                actual.add(c);
            } else {
                if (!same) {
                    failures.add(c.comment());
                }
                actual.add(got);
            }
        }
        String rendered = JSON.writeValueAsString(actual) + "\n";
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(file, rendered);
            return;
        }
        if (!failures.isEmpty()) {
            Path out = Paths.get("target/golden-actual").resolve(file.getFileName());
            Files.createDirectories(out.getParent());
            Files.writeString(out, rendered);
            System.out.println("golden mismatch; to accept: cp " + out.toAbsolutePath() + " " + file.toAbsolutePath());
        }
        assertThat(failures).as(file.getFileName().toString()).isEmpty();
    }

    /** Plans the case's statement and applies the plan to its literal (or given parameter) values. */
    static Case run(Case c) {
        String schema = c.schema() == null ? "shop" : c.schema().isEmpty() ? null : c.schema();
        Digest digest = Digest.of(c.sql());
        Plan plan = new Planner().plan(digest, schema, RULES);
        if (plan.route() instanceof Route.Refuse r) {
            return new Case(
                    c.comment(),
                    c.schema(),
                    c.sql(),
                    c.params(),
                    c.skip(),
                    null,
                    r.code().code() + ": " + r.reason());
        }
        Values values = c.params() == null ? Values.of(digest) : Values.of(digest, c.params());
        if (plan.route() instanceof Route.SplitInsert split) {
            // generated keys from a fixed sequence, so the golden targets and SQL are stable
            values = split.withGeneratedKeys(
                    values,
                    n -> LongStream.range(GENERATED_FROM, GENERATED_FROM + n).toArray());
        }
        ObjectNode out = plan.describeTree();
        Targets targets = plan.targets(values, RULES);
        if (targets.error() != null) {
            return new Case(c.comment(), c.schema(), c.sql(), c.params(), c.skip(), out, targets.error());
        }
        var list = out.putArray("targets");
        ObjectNode send = JSON.createObjectNode();
        for (Target t : targets.targets()) {
            list.add("hg" + t.hostgroup());
            RenderedSql sql = plan.sql(targets, t, values);
            send.put(
                    "hg" + t.hostgroup(),
                    sql.sql() + (sql.parameters().isEmpty() ? "" : "  -- bind " + sql.parameters()));
        }
        if (targets.anyOne()) {
            out.put("any_one", true);
        }
        if (!(plan.route() instanceof Route.Session)) {
            out.set("send", send);
        }
        return new Case(c.comment(), c.schema(), c.sql(), c.params(), c.skip(), out, null);
    }

    static JsonNode tree(Object o) {
        return JSON.valueToTree(o);
    }
}
