package io.shardgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CacheabilityTest {

    /** sql, expected mode in autocommit outside a transaction, expected reason (null: cacheable). */
    static Stream<Arguments> statements() {
        return Stream.of(
                // plain reads
                cached("SELECT c FROM sbtest1 WHERE id = 42"),
                cached("select c from sbtest1 where id in (1, 2, 3) order by c limit 10"),
                cached("SELECT COUNT(*), SUM(k) FROM sbtest1 WHERE id BETWEEN 1 AND 100"),
                cached("(SELECT a FROM t) UNION ALL (SELECT b FROM u)"),
                cached("WITH x AS (SELECT id FROM t) SELECT * FROM x"),
                cached("SELECT unix_timestamp(created) FROM t"),
                cached("SELECT t.user, t.now, `now` FROM t"),
                cached("SELECT * FROM t WHERE name = 'NOW()'"),
                cached("SELECT * FROM `update` WHERE d = CAST(? AS DATE)"),
                cached("SELECT SQL_CACHE c FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2020-01-01 00:00:00'"),
                cached("SELECT c FROM t WHERE x LIKE 'for update'"),
                cached("SELECT current_timestampx FROM t"),
                // hints
                mode("/*nocache*/ SELECT c FROM t", CacheMode.BYPASS, null),
                mode("SELECT /*wipe*/ c FROM t", CacheMode.REFRESH, null),
                mode("SELECT /*refresh*/ c FROM t", CacheMode.REFRESH, null),
                mode("SELECT /*wipe*/ NOW()", CacheMode.BYPASS, "function NOW()"),
                // not reads
                not("INSERT INTO t VALUES (1)", "not a SELECT"),
                not("UPDATE t SET c = 1", "not a SELECT"),
                not("SHOW TABLES", "not a SELECT"),
                not("SET @a = 1", "not a SELECT"),
                not("", "not a SELECT"),
                not(
                        "WITH x AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM x)",
                        "WITH before a data-changing statement"),
                not("SELECT 1; SELECT 2", "multi-statement"),
                not("SELECT c INTO @v FROM t", "SELECT ... INTO"),
                not("SELECT c FROM t INTO OUTFILE '/tmp/x'", "SELECT ... INTO"),
                // locking reads
                not("SELECT c FROM t WHERE id = 1 FOR UPDATE", "locking read FOR UPDATE"),
                not("SELECT c FROM t WHERE id = 1 for update nowait", "locking read FOR UPDATE"),
                not("SELECT c FROM t WHERE id = 1 FOR SHARE", "locking read FOR SHARE"),
                not("SELECT c FROM t WHERE id = 1 lock in share mode", "locking read LOCK IN SHARE MODE"),
                // time
                not("SELECT NOW()", "function NOW()"),
                not("select now ( )", "function NOW()"),
                not("SELECT CURRENT_TIMESTAMP", "function CURRENT_TIMESTAMP"),
                not("SELECT current_timestamp(3)", "function CURRENT_TIMESTAMP"),
                not("SELECT * FROM t WHERE d > CURRENT_DATE", "function CURRENT_DATE"),
                not("SELECT CURRENT_TIME", "function CURRENT_TIME"),
                not("SELECT LOCALTIME, 1", "function LOCALTIME"),
                not("SELECT LOCALTIMESTAMP", "function LOCALTIMESTAMP"),
                not("SELECT SYSDATE()", "function SYSDATE()"),
                not("SELECT CURDATE()", "function CURDATE()"),
                not("SELECT curtime()", "function CURTIME()"),
                not("SELECT UTC_TIMESTAMP()", "function UTC_TIMESTAMP"),
                not("SELECT UTC_DATE", "function UTC_DATE"),
                not("SELECT utc_time()", "function UTC_TIME"),
                not("SELECT UNIX_TIMESTAMP()", "function UNIX_TIMESTAMP()"),
                // chance
                not("SELECT * FROM t ORDER BY RAND() LIMIT 1", "function RAND()"),
                not("SELECT RAND(7)", "function RAND()"),
                not("SELECT UUID()", "function UUID()"),
                not("SELECT uuid_short()", "function UUID_SHORT()"),
                not("SELECT RANDOM_BYTES(8)", "function RANDOM_BYTES()"),
                not("SELECT `rand`()", "function RAND()"),
                // session
                not("SELECT CURRENT_USER", "function CURRENT_USER"),
                not("SELECT CURRENT_USER()", "function CURRENT_USER"),
                not("SELECT USER()", "function USER()"),
                not("SELECT SESSION_USER()", "function SESSION_USER()"),
                not("SELECT SYSTEM_USER()", "function SYSTEM_USER()"),
                not("SELECT CONNECTION_ID()", "function CONNECTION_ID()"),
                not("SELECT LAST_INSERT_ID()", "function LAST_INSERT_ID()"),
                not("SELECT FOUND_ROWS()", "function FOUND_ROWS()"),
                not("SELECT ROW_COUNT()", "function ROW_COUNT()"),
                not("SELECT DATABASE()", "function DATABASE()"),
                not("SELECT schema()", "function SCHEMA()"),
                not("SELECT @a", "user or system variable @a"),
                not("SELECT c FROM t WHERE id = @id", "user or system variable @id"),
                not("SELECT @@version", "user or system variable @@version"),
                not("SELECT @@session.sql_mode", "user or system variable @@session.sql_mode"),
                not("SELECT SQL_CALC_FOUND_ROWS c FROM t LIMIT 10", "SQL_CALC_FOUND_ROWS"),
                not("SELECT SQL_NO_CACHE c FROM t", "SQL_NO_CACHE"),
                not("SELECT /*!40001 SQL_NO_CACHE */ c FROM t", "SQL_NO_CACHE"),
                // server state and side effects
                not("SELECT SLEEP(1)", "function SLEEP()"),
                not("SELECT BENCHMARK(10, MD5('a'))", "function BENCHMARK()"),
                not("SELECT GET_LOCK('a', 1)", "function GET_LOCK()"),
                not("SELECT RELEASE_LOCK('a')", "function RELEASE_LOCK()"),
                not("SELECT IS_FREE_LOCK('a')", "function IS_FREE_LOCK()"),
                not("SELECT RELEASE_ALL_LOCKS()", "function RELEASE_ALL_LOCKS()"),
                not("SELECT LOAD_FILE('/etc/hosts')", "function LOAD_FILE()"),
                not("SELECT MASTER_POS_WAIT('f', 4)", "function MASTER_POS_WAIT()"),
                // sequences
                not("SELECT NEXTVAL(s)", "function NEXTVAL()"),
                not("SELECT LASTVAL(s)", "function LASTVAL()"),
                not("SELECT SETVAL(s, 10)", "function SETVAL()"),
                not("SELECT NEXT VALUE FOR s", "sequence NEXT VALUE FOR"),
                not("SELECT PREVIOUS VALUE FOR s", "sequence PREVIOUS VALUE FOR"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("statements")
    void decidesFromTheDigest(String sql, CacheMode mode, String reason) {
        Digest digest = Digest.of(sql);
        assertThat(Cacheability.uncacheableReason(digest)).as(digest.text()).isEqualTo(reason);
        assertThat(Cacheability.decide(digest, true, false)).as(digest.text()).isEqualTo(mode);
    }

    @ParameterizedTest(name = "autocommit={0} inTransaction={1}")
    @MethodSource("sessions")
    void neverCachesInsideATransactionOrWithoutAutocommit(boolean autocommit, boolean inTransaction, CacheMode mode) {
        assertThat(Cacheability.decide(Digest.of("SELECT c FROM t WHERE id = 1"), autocommit, inTransaction))
                .isEqualTo(mode);
        assertThat(Cacheability.decide(Digest.of("SELECT /*wipe*/ c FROM t"), autocommit, inTransaction))
                .isEqualTo(mode == CacheMode.USE ? CacheMode.REFRESH : CacheMode.BYPASS);
    }

    static Stream<Arguments> sessions() {
        return Stream.of(
                Arguments.of(true, false, CacheMode.USE),
                Arguments.of(true, true, CacheMode.BYPASS),
                Arguments.of(false, false, CacheMode.BYPASS),
                Arguments.of(false, true, CacheMode.BYPASS));
    }

    private static Arguments cached(String sql) {
        return Arguments.of(sql, CacheMode.USE, null);
    }

    private static Arguments not(String sql, String reason) {
        return Arguments.of(sql, CacheMode.BYPASS, reason);
    }

    private static Arguments mode(String sql, CacheMode mode, String reason) {
        return Arguments.of(sql, mode, reason);
    }
}
