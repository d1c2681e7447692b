package io.shardgate.sharding.digest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each thread digests every statement with one reused {@link Normalizer}: nothing of one statement
 * may leak into the next. Every statement of the golden plan files, whole and cut at random places
 * (which leave an IN list, a sign or a comment open), digested one after another by the reused
 * instance, must digest exactly as by a new one.
 */
class DigestReuseTest {
    private static List<String> corpus() throws IOException {
        List<String> sql = new ArrayList<>(List.of(
                "SELECT * FROM t WHERE id IN (1, 2, 3) AND x = -5",
                "SELECT /*!40001 SQL_NO_CACHE */ * FROM t",
                "SELECT 1; SELECT 2",
                "SELECT - 1, @a := ?, 'it''s' FROM t -- trailing",
                "INSERT INTO t VALUES (1, 'a'), (2, 'b') ON DUPLICATE KEY UPDATE v = -v",
                "SELECT a FROM t WHERE a NOT IN",
                "(SELECT 1, 2) UNION (SELECT 3, 4)",
                "(1, 2)"));
        ObjectMapper json = new ObjectMapper();
        try (Stream<Path> files = Files.list(Path.of("src/test/resources/plans"))) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                for (JsonNode c : json.readTree(f.toFile())) {
                    if (c.hasNonNull("sql")) {
                        sql.add(c.get("sql").asText());
                    }
                }
            }
        }
        return sql;
    }

    private static String describe(Digest d) {
        return d.text() + " | " + d.hash() + " | " + d.literals() + " | slots " + d.slotCount() + " params "
                + d.parameterCount() + " multi " + d.multiStatement() + " lists "
                + java.util.stream.IntStream.range(0, d.slotCount())
                        .filter(d::isListSlot)
                        .boxed()
                        .toList()
                + " hints "
                + java.util.Arrays.stream(Hint.values()).filter(d::has).toList();
    }

    @Test
    void aReusedNormalizerDigestsEachStatementAsANewOne() throws IOException {
        List<String> statements = corpus();
        assertThat(statements).hasSizeGreaterThan(100);
        List<String> fresh = statements.stream()
                .map(sql -> describe(new Normalizer().start(sql).run()))
                .toList();
        Random random = new Random(21);
        // each statement right after every other one cut short (an IN list, a sign, a comment left open)
        for (String before : statements) {
            String cut = before.substring(0, random.nextInt(before.length() + 1));
            for (int i = 0; i < statements.size(); i++) {
                Digest.of(cut);
                assertThat(describe(Digest.of(statements.get(i))))
                        .as("%s after %s", statements.get(i), cut)
                        .isEqualTo(fresh.get(i));
            }
        }
    }
}
