package io.shardgate.benchmarks;

import io.shardgate.sharding.digest.Digest;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link Digest#of}, run for every statement the router receives: sysbench's point select and two
 * statements of about 1 KiB (a five-row INSERT with sysbench's long CHAR values, a SELECT with a
 * 150-value IN list). The baseline hashes the client's raw text with the digest's FNV-1a loop and
 * does nothing else: the cost of keying plans on the full SQL text instead of its normalized shape
 * (the digest hashes only the normalized text, which is shorter once literals are gone).
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar DigestBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DigestBenchmark {
    @Param({"point-select", "insert-1k", "select-in-1k"})
    public String statement;

    private String sql;

    @Setup
    public void setUp() {
        sql = switch (statement) {
            case "point-select" -> Statements.POINT_SELECT;
            case "insert-1k" -> Statements.bulkInsert();
            case "select-in-1k" -> Statements.selectInList();
            default -> throw new IllegalArgumentException("unknown statement " + statement);
        };
    }

    @Benchmark
    public Digest digest() {
        return Digest.of(sql);
    }

    @Benchmark
    public long baselineHashChars() {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < sql.length(); i++) {
            h ^= sql.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }
}
