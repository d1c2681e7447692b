package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The session effects read off a statement's digest ({@link StatementScanner#scan(Digest)}) against
 * the statement scanner they replaced: a second pass over the client's text with the session
 * lexer, kept here as the oracle. Generated statements mix the marked words (any case, as words,
 * inside strings, comments and back-quoted names), user and system variables, the three comment
 * styles, MySQL's and MariaDB's executable comments and SET STATEMENT prefixes; both must find
 * the same pins and previous-statement and LAST_INSERT_ID reads.
 */
class StatementEffectsFromDigestTest {
    private static final String[] FIRST = {
        "SELECT",
        "select",
        "INSERT INTO t",
        "UPDATE t SET",
        "DELETE FROM t",
        "LOCK TABLES",
        "lock tables",
        "PREPARE s FROM",
        "HANDLER t OPEN",
        "XA START",
        "(SELECT",
        "CREATE TEMPORARY TABLE",
        "DO",
        "REPLACE INTO t",
        "SHOW WARNINGS"
    };
    private static final String[] MARKED = {
        "GET_LOCK",
        "release_lock",
        "Is_Used_Lock",
        "SQL_CALC_FOUND_ROWS",
        "found_rows",
        "ROW_COUNT",
        "temporary",
        "LAST_INSERT_ID",
        "connection_id",
        "PROCESSLIST"
    };
    private static final String[] OTHER = {
        "a",
        "t.c",
        "`b`",
        "1",
        "-2.5",
        "0x1F",
        "'x'",
        "NULL",
        ",",
        "(",
        ")",
        "=",
        "+",
        "FROM",
        "WHERE",
        "AND",
        "AS",
        "COUNT(*)",
        "ORDER BY",
        "LIMIT 1",
        "?",
        ":="
    };

    @Test
    void findsWhatTheTextScannerFound() {
        Random random = new Random(20261127);
        for (int i = 0; i < 50_000; i++) {
            String sql = statement(random);
            assertThat(effects(StatementScanner.scan(Digest.of(sql)))).as(sql).isEqualTo(effects(textScan(sql)));
        }
    }

    @Test
    void wordsInStringsCommentsAndQuotedNamesAreNotMarks() {
        for (String sql : List.of(
                "SELECT 'GET_LOCK(1)', \"found_rows\"",
                "SELECT 1 -- LAST_INSERT_ID()\n",
                "SELECT 1 # TEMPORARY",
                "SELECT /* ROW_COUNT() */ 1",
                "SELECT `get_lock`, `temporary` FROM t")) {
            assertThat(StatementScanner.scan(Digest.of(sql))).as(sql).isEqualTo(StatementEffects.NONE);
        }
        assertThat(StatementScanner.scan(Digest.of("SELECT /*!50000 GET_LOCK('a', 1) */"))
                        .pins())
                .containsExactly(PinReason.NAMED_LOCK); // MySQL's executable comment is code
        assertThat(StatementScanner.scan(Digest.of("SELECT 1 /*M! , @x */")).pins())
                .containsExactly(PinReason.VERSIONED_COMMENT); // MariaDB's is a comment to the digest
    }

    @Test
    void marksTheRouterAnswersAndRewritesAreNoted() {
        assertThat(Digest.of("SELECT @@session.warning_count").has(Mark.DIAGNOSTICS_COUNT))
                .isTrue();
        assertThat(Digest.of("select @@ERROR_COUNT").has(Mark.DIAGNOSTICS_COUNT))
                .isTrue();
        assertThat(Digest.of("SELECT '@@warning_count'").has(Mark.DIAGNOSTICS_COUNT))
                .isFalse();
        assertThat(Digest.of("SELECT @@identity").has(Mark.IDENTITY_VARIABLE)).isTrue();
        assertThat(Digest.of("SELECT @@session.last_insert_id").has(Mark.IDENTITY_VARIABLE))
                .isTrue();
        assertThat(Digest.of("SELECT * FROM information_schema.`PROCESSLIST`").has(Mark.PROCESSLIST))
                .isTrue();
        assertThat(Digest.of("KILL CONNECTION_ID()").has(Mark.CONNECTION_ID)).isTrue();
        assertThat(Digest.of("SELECT 1").unmarked()).isTrue();
        // the prefix's values count: SET STATEMENT reads the user variable on the backend connection
        assertThat(Digest.of("SET STATEMENT max_statement_time = @t FOR SELECT 1")
                        .has(Mark.USER_VARIABLE))
                .isTrue();
    }

    @Test
    void firstWordIsReadOffTheNormalizedText() {
        assertThat(Digest.of("  /* c */ kill 5").startsWith("KILL")).isTrue();
        assertThat(Digest.of("((select 1))").startsWith("SELECT")).isTrue();
        assertThat(Digest.of("KILLER 5").startsWith("KILL")).isFalse();
        assertThat(Digest.of("insert_x()").startsWith("INSERT")).isFalse();
    }

    private static String statement(Random random) {
        StringBuilder sql = new StringBuilder();
        if (random.nextInt(10) == 0) {
            sql.append("SET STATEMENT max_statement_time = ")
                    .append(random.nextBoolean() ? "@t" : "5")
                    .append(" FOR ");
        }
        sql.append(FIRST[random.nextInt(FIRST.length)]);
        int tokens = 1 + random.nextInt(12);
        for (int i = 0; i < tokens; i++) {
            // always a space: glued to a number a word lexes differently (2.5temporary: the digest
            // reads MySQL's 2.5 and a word, the old scanner one number; the digest pins, safely)
            sql.append(' ').append(token(random));
        }
        return sql.toString();
    }

    private static String token(Random random) {
        String word = MARKED[random.nextInt(MARKED.length)];
        return switch (random.nextInt(14)) {
            case 0, 1, 2 -> word;
            case 3 -> word + "()";
            case 4 -> "'" + word + "'";
            case 5 -> "`" + word.toLowerCase(Locale.ROOT) + "`";
            case 6 -> "/* " + word + " */";
            case 7 -> "/*!40101 " + word + " */";
            case 8 -> "/*M!100100 " + word + " */";
            case 9 -> "-- " + word + "\n";
            case 10 -> random.nextBoolean() ? "@v" : "@'q v'";
            case 11 -> random.nextBoolean() ? "@@session.warning_count" : "@@autocommit";
            default -> OTHER[random.nextInt(OTHER.length)];
        };
    }

    /** What the router acts on: pins, and whether the previous statement or LAST_INSERT_ID() is read. */
    private static List<Object> effects(StatementEffects e) {
        return List.of(e.pins(), e.readsPreviousStatement(), e.readsLastInsertId(), e.variables(), e.schema() == null);
    }

    /** The statement scanner's pass over the text before the digest noted marks: the oracle. */
    private static StatementEffects textScan(String sql) {
        Lexer lexer = new Lexer(sql);
        Set<PinReason> pins = EnumSet.noneOf(PinReason.class);
        boolean lastInsertId = false;
        boolean previousStatement = false;
        String first = null;
        while (lexer.next()) {
            switch (lexer.kind) {
                case VERSIONED_COMMENT -> pins.add(PinReason.VERSIONED_COMMENT);
                case USER_VARIABLE -> pins.add(PinReason.USER_VARIABLE);
                case WORD -> {
                    if (first == null) {
                        first = sql.substring(lexer.start, lexer.end).toUpperCase(Locale.ROOT);
                    }
                    if (lexer.is("GET_LOCK") || lexer.is("RELEASE_LOCK") || lexer.is("IS_USED_LOCK")) {
                        pins.add(PinReason.NAMED_LOCK);
                    } else if (lexer.is("SQL_CALC_FOUND_ROWS")) {
                        pins.add(PinReason.FOUND_ROWS);
                    } else if (lexer.is("FOUND_ROWS")) {
                        pins.add(PinReason.FOUND_ROWS);
                        previousStatement = true;
                    } else if (lexer.is("ROW_COUNT")) {
                        previousStatement = true;
                    } else if (lexer.is("TEMPORARY")) {
                        pins.add(PinReason.TEMPORARY_TABLE);
                    } else if (lexer.is("LAST_INSERT_ID")) {
                        lastInsertId = true;
                    }
                }
                default -> {}
            }
        }
        if ("SET".equals(first)) {
            // SET STATEMENT ... FOR: nothing to replay (the generator writes no other SET)
        } else if ("LOCK".equals(first)) {
            pins.add(PinReason.LOCK_TABLES);
        } else if ("PREPARE".equals(first)) {
            pins.add(PinReason.SQL_PREPARE);
        } else if ("HANDLER".equals(first)) {
            pins.add(PinReason.HANDLER);
        } else if ("XA".equals(first)) {
            pins.add(PinReason.XA);
        }
        return new StatementEffects(java.util.Map.of(), null, Set.copyOf(pins), lastInsertId, previousStatement);
    }
}
