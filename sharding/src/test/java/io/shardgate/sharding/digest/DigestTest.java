package io.shardgate.sharding.digest;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DigestTest {

    static Stream<Arguments> texts() {
        return Stream.of(
                // sql, normalized text, literal sources in order
                Arguments.of("SELECT c FROM sbtest1 WHERE id=42", "SELECT c FROM sbtest1 WHERE id = ?", List.of("42")),
                Arguments.of(
                        "select  c\n\tfrom sbtest1 where id = 42 ;",
                        "SELECT c FROM sbtest1 WHERE id = ?",
                        List.of("42")),
                Arguments.of(
                        "SELECT * FROM t WHERE a = 'x' AND b = \"y\"",
                        "SELECT * FROM t WHERE a = ? AND b = ?",
                        List.of("'x'", "\"y\"")),
                Arguments.of(
                        "SELECT 'it''s', 'a\\'b', \"q\\\"\"",
                        "SELECT ?, ?, ?",
                        List.of("'it''s'", "'a\\'b'", "\"q\\\"\"")),
                Arguments.of(
                        "SELECT x'0A', X'ff', 0x1F, b'101', 0b11",
                        "SELECT ?, ?, ?, ?, ?",
                        List.of("x'0A'", "X'ff'", "0x1F", "b'101'", "0b11")),
                Arguments.of(
                        "SELECT 1.5, .5, 3., 1e3, 2.5E-4",
                        "SELECT ?, ?, ?, ?, ?",
                        List.of("1.5", ".5", "3.", "1e3", "2.5E-4")),
                Arguments.of(
                        "SELECT * FROM t WHERE a = -5 AND b - 1 > 0",
                        "SELECT * FROM t WHERE a = ? AND b - ? > ?",
                        List.of("-5", "1", "0")),
                Arguments.of(
                        "SELECT a FROM t WHERE a IS NULL OR a = NULL",
                        "SELECT a FROM t WHERE a IS NULL OR a = NULL",
                        List.of()),
                Arguments.of("SELECT NULL - 1, TRUE", "SELECT NULL - ?, TRUE", List.of("1")),
                Arguments.of(
                        "SELECT a FROM t WHERE id IN (1, 2, 3)",
                        "SELECT a FROM t WHERE id IN (...)",
                        List.of("1", "2", "3")),
                Arguments.of("SELECT a FROM t WHERE id in(1)", "SELECT a FROM t WHERE id IN (...)", List.of("1")),
                Arguments.of(
                        "SELECT a FROM t WHERE id NOT IN (-1,'a', ?)",
                        "SELECT a FROM t WHERE id NOT IN (...)",
                        List.of("-1", "'a'", "?")),
                Arguments.of("SELECT a FROM t WHERE id IN (a, 1)", "SELECT a FROM t WHERE id IN (a, ?)", List.of("1")),
                Arguments.of(
                        "SELECT a FROM t WHERE id IN (SELECT b FROM u WHERE c = 2)",
                        "SELECT a FROM t WHERE id IN (SELECT b FROM u WHERE c = ?)",
                        List.of("2")),
                Arguments.of(
                        "SELECT COUNT(*), count(DISTINCT a), sum(b) FROM t",
                        "SELECT COUNT(*), COUNT(DISTINCT a), SUM(b) FROM t",
                        List.of()),
                Arguments.of(
                        "SELECT `select`, `a``b` FROM `Order` o", "SELECT `select`, `a``b` FROM `Order` o", List.of()),
                Arguments.of(
                        "SELECT t.id, shop.Orders.x FROM shop.Orders t",
                        "SELECT t.id, shop.Orders.x FROM shop.Orders t",
                        List.of()),
                Arguments.of(
                        "SELECT a FROM Events WHERE s.order = 1",
                        "SELECT a FROM Events WHERE s.order = ?",
                        List.of("1")),
                Arguments.of(
                        "SELECT a -- trailing\nFROM t # hash\n/* block */ WHERE b = 1",
                        "SELECT a FROM t WHERE b = ?",
                        List.of("1")),
                Arguments.of("SELECT a--1 FROM t", "SELECT a - ? FROM t", List.of("-1")),
                Arguments.of("SELECT /*!40001 SQL_NO_CACHE */ a FROM t", "SELECT SQL_NO_CACHE a FROM t", List.of()),
                Arguments.of(
                        "CREATE TABLE t (a INT) /*!50100 PARTITION BY HASH(a) */",
                        "CREATE TABLE t (a INT) PARTITION BY HASH(a)",
                        List.of()),
                Arguments.of(
                        "SELECT @a := 1, @@session.autocommit, @`q`",
                        "SELECT @a := ?, @@session.autocommit, @`q`",
                        List.of("1")),
                Arguments.of(
                        "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')",
                        "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)",
                        List.of("1", "'x'", "2", "'y'")),
                Arguments.of(
                        "SELECT N'abc', _utf8mb4'd', _binary\"e\"",
                        "SELECT ?, ?, ?",
                        List.of("N'abc'", "_utf8mb4'd'", "_binary\"e\"")),
                Arguments.of(
                        "SELECT a FROM t WHERE id = ? LIMIT ?, ?",
                        "SELECT a FROM t WHERE id = ? LIMIT ?, ?",
                        List.of("?", "?", "?")),
                Arguments.of("SELECT 1abc, a1 FROM t1", "SELECT 1abc, a1 FROM t1", List.of()),
                Arguments.of(
                        "SELECT a<=>b, a!=b, a->>'$.x' FROM t",
                        "SELECT a <=> b, a != b, a ->> ? FROM t",
                        List.of("'$.x'")),
                Arguments.of("begin", "BEGIN", List.of()),
                Arguments.of("UPDATE t SET begin = 1", "UPDATE t SET begin = ?", List.of("1")),
                Arguments.of("SELECT COUNT (*) FROM t", "SELECT COUNT (*) FROM t", List.of()));
    }

    @ParameterizedTest
    @MethodSource("texts")
    void normalizes(String sql, String text, List<String> sources) {
        Digest d = Digest.of(sql);
        assertThat(d.text()).isEqualTo(text);
        assertThat(d.literals().stream().map(d::source)).containsExactlyElementsOf(sources);
        assertThat(d.hash()).isEqualTo(Digest.of(text).hash());
    }

    @Test
    void literalsDifferingOnlyInValueShareTheDigest() {
        Digest a = Digest.of("SELECT c FROM sbtest1 WHERE id = 1");
        Digest b = Digest.of("select c from sbtest1 where id=99999 -- x");
        Digest c = Digest.of("SELECT c FROM sbtest1 WHERE id = 'x'");
        Digest d = Digest.of("SELECT c FROM sbtest2 WHERE id = 1");
        assertThat(a.hash()).isEqualTo(b.hash()).isEqualTo(c.hash());
        assertThat(a.hash()).isNotEqualTo(d.hash());
        assertThat(Digest.of("SELECT a FROM t WHERE id IN (1,2)").hash())
                .isEqualTo(
                        Digest.of("SELECT a FROM t WHERE id IN (7, 8, 9, 10)").hash());
    }

    @Test
    void inListSharesOneSlot() {
        Digest d = Digest.of("SELECT a FROM t WHERE x = 0 AND id IN (1, 2, 3) AND y = 4");
        assertThat(d.slotCount()).isEqualTo(3);
        assertThat(d.literals()).extracting(Literal::slot).containsExactly(0, 1, 1, 1, 2);
        assertThat(d.isListSlot(1)).isTrue();
        assertThat(d.isListSlot(0)).isFalse();
        assertThat(d.parseText()).isEqualTo("SELECT a FROM t WHERE x = ? AND id IN (?  ) AND y = ?");
        assertThat(d.parseText()).hasSameSizeAs(d.text());
    }

    @Test
    void decodesIntegersAtTheEdgesOfLong() {
        Digest d = Digest.of("SELECT 9223372036854775807, -9223372036854775808, 9223372036854775808,"
                + " -9223372036854775809, 007, - 12, +5, 0, -0, 123456789012345678901234567890");
        assertThat(d.literals().stream().map(d::value).toList())
                .containsExactly(
                        Long.MAX_VALUE,
                        Long.MIN_VALUE,
                        new BigInteger("9223372036854775808"),
                        new BigInteger("-9223372036854775809"),
                        7L,
                        -12L,
                        5L,
                        0L,
                        0L,
                        new BigInteger("123456789012345678901234567890"));
    }

    @Test
    void decodesValues() {
        Digest d = Digest.of("SELECT 42, -7, 99999999999999999999, 1.50, 1e3, 'a''b\\n\\%', _utf8mb4'z',"
                + " X'0aff', 0x1, b'1000000001', ?, - 3");
        List<Object> values = d.literals().stream().map(d::value).toList();
        assertThat(values.subList(0, 7))
                .containsExactly(
                        42L,
                        -7L,
                        new BigInteger("99999999999999999999"),
                        new BigDecimal("1.50"),
                        1000.0,
                        "a'b\n\\%",
                        "z");
        assertThat((byte[]) values.get(7)).containsExactly(0x0a, 0xff);
        assertThat((byte[]) values.get(8)).containsExactly(0x01);
        assertThat((byte[]) values.get(9)).containsExactly(0x02, 0x01);
        assertThat(values.get(10)).isNull();
        assertThat(values.get(11)).isEqualTo(-3L);
        assertThat(d.literals().get(10).parameter()).isZero();
        assertThat(d.literals())
                .extracting(Literal::kind)
                .containsExactly(
                        LiteralKind.INTEGER,
                        LiteralKind.INTEGER,
                        LiteralKind.INTEGER,
                        LiteralKind.DECIMAL,
                        LiteralKind.FLOAT,
                        LiteralKind.STRING,
                        LiteralKind.STRING,
                        LiteralKind.HEX,
                        LiteralKind.HEX,
                        LiteralKind.BIT,
                        LiteralKind.PARAMETER,
                        LiteralKind.INTEGER);
    }

    @Test
    void hintsBecomeFlags() {
        Digest d = Digest.of("SELECT /*nocache*/ a FROM t");
        assertThat(d.has(Hint.NOCACHE)).isTrue();
        assertThat(d.has(Hint.WIPE)).isFalse();
        assertThat(d.text()).isEqualTo("SELECT a FROM t");
        assertThat(Digest.of("/* WIPE */ SELECT a FROM t").has(Hint.WIPE)).isTrue();
        assertThat(Digest.of("SELECT a FROM t /*refresh*/").has(Hint.WIPE)).isTrue();
        assertThat(Digest.of("SELECT a /* not nocache */ FROM t").has(Hint.NOCACHE))
                .isFalse();
    }

    @Test
    void marksTheLastGtidVariableInAnyScopeButNotInStrings() {
        assertThat(Digest.of("SELECT @@last_gtid").has(Mark.LAST_GTID)).isTrue();
        assertThat(Digest.of("select @@SESSION.LAST_GTID, 1").has(Mark.LAST_GTID))
                .isTrue();
        assertThat(Digest.of("SELECT '@@last_gtid'").has(Mark.LAST_GTID)).isFalse();
        assertThat(Digest.of("SELECT @@last_gtid_x").has(Mark.LAST_GTID)).isFalse();
        assertThat(Digest.of("SELECT @@identity").has(Mark.LAST_GTID)).isFalse();
    }

    @Test
    void detectsSeveralStatements() {
        assertThat(Digest.of("SELECT 1; ").multiStatement()).isFalse();
        assertThat(Digest.of("SELECT 1; SELECT 2").multiStatement()).isTrue();
        assertThat(Digest.of("SELECT 1; SELECT 2").text()).isEqualTo("SELECT ?; SELECT ?");
        assertThat(Digest.of("SELECT `a;b` FROM t").multiStatement()).isFalse();
        assertThat(Digest.of("SELECT ';'").multiStatement()).isFalse();
    }

    @Test
    void survivesUnterminatedInput() {
        assertThat(Digest.of("SELECT 'abc").text()).isEqualTo("SELECT ?");
        assertThat(Digest.of("SELECT 'abc")
                        .value(Digest.of("SELECT 'abc").literals().get(0)))
                .isEqualTo("abc");
        assertThat(Digest.of("SELECT a /* open").text()).isEqualTo("SELECT a");
        assertThat(Digest.of("").text()).isEmpty();
        assertThat(Digest.of("SELECT `x").text()).isEqualTo("SELECT `x");
    }
}
