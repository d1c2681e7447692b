package io.shardgate.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Repository;
import io.shardgate.protocol.type.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md's table lists exactly the error codes the router answers itself, with
 * their SQLSTATE. The codes are read from the main sources of the modules a router runs:
 * {@code ErrorCode.X} references and {@code new ErrPacket(code, ...)} with a literal or a named
 * constant. A new way of building an error that this scan cannot resolve fails the test rather
 * than going unnoticed.
 */
class TroubleshootingReferenceTest {
    private static final List<String> MODULES =
            List.of("protocol", "sharding", "merge", "cache", "admin", "router-core");
    private static final Pattern ERROR_CODE_REF = Pattern.compile("ErrorCode\\.([A-Z_]+)");
    private static final Pattern NEW_ERR_PACKET =
            Pattern.compile("new ErrPacket\\(\\s*([^,\\s]+)\\s*,\\s*\"([0-9A-Z]{5})\"");
    private static final Pattern INT_CONSTANT = Pattern.compile("static final int ([A-Z_]+) = (\\d+);");

    /** Code -> SQLSTATE of every error the sources build. */
    private static Map<Integer, String> codesInSources() throws Exception {
        Map<String, ErrorCode> named = new HashMap<>();
        for (Field field : ErrorCode.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == ErrorCode.class) {
                named.put(field.getName(), (ErrorCode) field.get(null));
            }
        }
        List<Path> sources = sources();
        Map<String, Integer> constants = new HashMap<>();
        for (Path source : sources) {
            Matcher m = INT_CONSTANT.matcher(read(source));
            while (m.find()) {
                constants.put(m.group(1), Integer.parseInt(m.group(2)));
            }
        }
        Map<Integer, String> codes = new TreeMap<>();
        for (Path source : sources) {
            String name = source.getFileName().toString();
            if (name.equals("ErrorCode.java") || name.equals("ErrPacket.java")) {
                continue; // the definitions themselves
            }
            String text = read(source);
            Matcher ref = ERROR_CODE_REF.matcher(text);
            while (ref.find()) {
                ErrorCode code = named.get(ref.group(1));
                assertThat(code).as(source + ": ErrorCode." + ref.group(1)).isNotNull();
                codes.put(code.code(), code.sqlState());
            }
            Matcher packet = NEW_ERR_PACKET.matcher(text);
            while (packet.find()) {
                String code = packet.group(1);
                if (code.startsWith("ErrorCode.")) {
                    continue; // counted above
                }
                String constant = code.substring(code.lastIndexOf('.') + 1);
                Integer number = code.matches("\\d+") ? Integer.valueOf(code) : constants.get(constant);
                assertThat(number)
                        .as(source + ": cannot resolve the error code '" + code + "'; extend this test")
                        .isNotNull();
                codes.put(number, packet.group(2));
            }
        }
        return codes;
    }

    private static List<Path> sources() throws IOException {
        List<Path> sources = new ArrayList<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(Repository.file(module + "/src/main/java"))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
            }
        }
        return sources;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void documentsEveryErrorCodeTheRouterSendsWithItsSqlState() throws Exception {
        Map<Integer, String> inSources = codesInSources();
        assertThat(inSources).containsKeys(1040, 1045, 1148, 1235, 2013, 9001);
        ReferenceTable doc = ReferenceTable.of("troubleshooting.md");
        Map<Integer, String> documented = new TreeMap<>();
        doc.rows().forEach((code, cells) -> documented.put(Integer.parseInt(code), cells[0]));
        assertThat(documented)
                .as("error codes in docs/troubleshooting.md vs the codes the sources send")
                .isEqualTo(inSources);
    }

    @Test
    void theReadmesErrorListNamesOnlyDocumentedCodes() {
        Set<Integer> documented = new TreeSet<>();
        ReferenceTable.of("troubleshooting.md").rows().keySet().forEach(c -> documented.add(Integer.parseInt(c)));
        String readme = read(Repository.file("README.md"));
        int start = readme.indexOf("Shardgate's\n  own:");
        assertThat(start).as("README's Errors paragraph").isPositive();
        Matcher code =
                Pattern.compile("\\b(\\d{4})\\b").matcher(readme.substring(start, readme.indexOf("\n\n", start)));
        while (code.find()) {
            assertThat(documented).contains(Integer.parseInt(code.group(1)));
        }
    }

    /**
     * The SQL admin port answers its own errors ({@code AdminSqlException}s and the session's
     * literal {@code error(ctx, code, ...)} calls, with SQLSTATEs of their own): docs/admin-sql.md's
     * Errors table lists exactly those codes, plus 1045 from the login it shares with the MySQL port.
     */
    @Test
    void documentsEveryErrorCodeTheSqlAdminPortSends() throws IOException {
        Pattern thrown = Pattern.compile("new AdminSqlException\\(\\s*(\\d+)|\\berror\\(ctx, (\\d+),");
        Set<Integer> inSources = new TreeSet<>(Set.of(1045));
        try (Stream<Path> files =
                Files.walk(Repository.file("router-core/src/main/java/io/shardgate/router/adminsql"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = thrown.matcher(read(file));
                while (m.find()) {
                    inSources.add(Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2)));
                }
            }
        }
        assertThat(inSources).contains(1064, 1105, 1146, 1288);
        String page = read(Repository.file("docs/admin-sql.md"));
        int start = page.indexOf("### Errors");
        assertThat(start).as("docs/admin-sql.md's Errors section").isPositive();
        int end = page.indexOf("\n#", start + 1);
        Matcher row =
                Pattern.compile("(?m)^\\| (\\d{4}) \\|").matcher(page.substring(start, end < 0 ? page.length() : end));
        Set<Integer> documented = new TreeSet<>();
        while (row.find()) {
            documented.add(Integer.parseInt(row.group(1)));
        }
        assertThat(documented)
                .as("error codes in docs/admin-sql.md vs the codes the SQL admin port sends")
                .isEqualTo(inSources);
    }
}
