package io.shardgate.it.differential;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The fixed schema and rows of the differential tester: one table per sharding strategy (hash on a
 * BIGINT, hash on a utf8mb4_general_ci VARCHAR, range, a binding group, broadcast, unlisted) over
 * hostgroups 10, 20, 30, and rows full of traps: NULLs, duplicates, keys 0 and +-2^63, DECIMAL and
 * DOUBLE with many digits, DATETIME(6), strings equal under the collation but not byte for byte
 * ({@code 'k'}, {@code 'K'}, {@code 'k '}, {@code 'ss'}, {@code 'ß'}, {@code 'é'}, {@code 'e'}, {@code ''}).
 * The rows come from a fixed seed: every run, whatever its statement seed, starts from them.
 */
final class DifferentialSchema {
    static final String SCHEMA = "dt";
    static final long MIN = Long.MIN_VALUE;
    static final long MAX = Long.MAX_VALUE;

    /** A column: name, SQL type family and (for strings) collation. */
    record Column(String name, Type type, String collation) {
        boolean string() {
            return type == Type.STRING;
        }

        boolean numeric() {
            return type == Type.INT || type == Type.BIGINT || type == Type.DECIMAL || type == Type.DOUBLE;
        }
    }

    enum Type {
        INT,
        BIGINT,
        DECIMAL,
        DOUBLE,
        STRING,
        DATETIME
    }

    /** How the rules place a table's rows. */
    enum Placement {
        HASH_INTEGER,
        HASH_STRING,
        RANGE,
        BROADCAST,
        UNSHARDED
    }

    /** A table: columns (the first {@code pk} of them are the primary key, in order), its shard key, its rows. */
    record Table(String name, Placement placement, String key, List<Column> columns, List<String> pk, String ddl) {
        Column column(String name) {
            return columns.stream()
                    .filter(c -> c.name().equals(name))
                    .findFirst()
                    .orElseThrow();
        }

        boolean sharded() {
            return placement == Placement.HASH_INTEGER
                    || placement == Placement.HASH_STRING
                    || placement == Placement.RANGE;
        }

        String orderByPk() {
            return String.join(", ", pk);
        }
    }

    static final String GCI = "utf8mb4_general_ci";
    static final String BIN = "utf8mb4_bin";
    static final String UCI = "utf8mb4_unicode_ci";

    private static Column c(String name, Type type) {
        return new Column(name, type, null);
    }

    private static Column s(String name, String collation) {
        return new Column(name, Type.STRING, collation);
    }

    static final Table HI = new Table(
            "hi",
            Placement.HASH_INTEGER,
            "id",
            List.of(
                    c("id", Type.BIGINT),
                    c("grp", Type.INT),
                    s("s", GCI),
                    s("b", BIN),
                    s("u", UCI),
                    c("d", Type.DECIMAL),
                    c("f", Type.DOUBLE),
                    c("dt", Type.DATETIME),
                    c("n", Type.BIGINT)),
            List.of("id"),
            "CREATE TABLE hi (id BIGINT NOT NULL PRIMARY KEY, grp INT NULL, s VARCHAR(20) COLLATE utf8mb4_general_ci"
                    + " NULL, b VARCHAR(20) COLLATE utf8mb4_bin NULL, u VARCHAR(20) COLLATE utf8mb4_unicode_ci NULL,"
                    + " d DECIMAL(30,10) NULL, f DOUBLE NULL, dt DATETIME(6) NULL, n BIGINT NULL)"
                    + " DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci");
    static final Table HC = new Table(
            "hc",
            Placement.HASH_INTEGER,
            "pid",
            List.of(c("pid", Type.BIGINT), c("id", Type.INT), c("qty", Type.INT), s("s", GCI), c("d", Type.DECIMAL)),
            List.of("pid", "id"),
            "CREATE TABLE hc (pid BIGINT NOT NULL, id INT NOT NULL, qty INT NULL, s VARCHAR(20) NULL,"
                    + " d DECIMAL(30,10) NULL, PRIMARY KEY (pid, id)) DEFAULT CHARSET utf8mb4 COLLATE"
                    + " utf8mb4_general_ci");
    static final Table HS = new Table(
            "hs",
            Placement.HASH_STRING,
            "k",
            List.of(s("k", GCI), c("grp", Type.INT), s("s", GCI), c("d", Type.DECIMAL), c("f", Type.DOUBLE)),
            List.of("k"),
            "CREATE TABLE hs (k VARCHAR(20) NOT NULL PRIMARY KEY, grp INT NULL, s VARCHAR(20) NULL,"
                    + " d DECIMAL(30,10) NULL, f DOUBLE NULL) DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci");
    static final Table RG = new Table(
            "rg",
            Placement.RANGE,
            "id",
            List.of(
                    c("id", Type.BIGINT),
                    c("grp", Type.INT),
                    s("s", GCI),
                    c("d", Type.DECIMAL),
                    c("f", Type.DOUBLE),
                    c("dt", Type.DATETIME)),
            List.of("id"),
            "CREATE TABLE rg (id BIGINT NOT NULL PRIMARY KEY, grp INT NULL, s VARCHAR(20) NULL, d DECIMAL(30,10)"
                    + " NULL, f DOUBLE NULL, dt DATETIME(6) NULL) DEFAULT CHARSET utf8mb4 COLLATE"
                    + " utf8mb4_general_ci");
    static final Table BR = new Table(
            "br",
            Placement.BROADCAST,
            null,
            List.of(s("code", GCI), s("name", GCI), c("grp", Type.INT)),
            List.of("code"),
            "CREATE TABLE br (code VARCHAR(8) NOT NULL PRIMARY KEY, name VARCHAR(20) NULL, grp INT NULL)"
                    + " DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci");
    static final Table UN = new Table(
            "un",
            Placement.UNSHARDED,
            null,
            List.of(c("id", Type.INT), s("s", GCI), c("grp", Type.INT), c("d", Type.DECIMAL)),
            List.of("id"),
            "CREATE TABLE un (id INT NOT NULL PRIMARY KEY, s VARCHAR(20) NULL, grp INT NULL, d DECIMAL(30,10) NULL)"
                    + " DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci");

    static final List<Table> TABLES = List.of(HI, HC, HS, RG, BR, UN);

    /** The rules (YAML lines under the schema), hostgroups 10, 20, 30; unlisted tables live on 10. */
    static final List<String> RULES = List.of(
            "tables:",
            "  - {name: hi, strategy: hash, column: id, buckets: 12, hostgroups: {10: \"0-3\", 20: \"4-7\", 30:"
                    + " \"8-11\"}}",
            "  - {name: hc, strategy: hash, column: pid, buckets: 12, hostgroups: {10: \"0-3\", 20: \"4-7\", 30:"
                    + " \"8-11\"}}",
            "  - {name: hs, strategy: hash, column: k, key_type: string, key_collation: utf8mb4_general_ci, buckets: 12, hostgroups: {10: \"0-3\", 20:"
                    + " \"4-7\", 30: \"8-11\"}}",
            "  - {name: rg, strategy: range, column: id, ranges: [{below: 0, hostgroup: 10}, {below: 1000, hostgroup:"
                    + " 20}, {hostgroup: 30}]}",
            "  - {name: br, strategy: broadcast}",
            "binding_groups: [[hi, hc]]");

    /** Strings equal under general_ci / unicode_ci but not byte for byte, and the empty string. */
    static final String[] TRAPS = {
        "k", "K", "k ", "ss", "ß", "s", "é", "e", "E", "", "apple", "Apple", "APPLE ", "a", "A ", "zeta", "ü", "u"
    };

    static final String[] DECIMALS = {
        "12345678901234567890.1234567891",
        "-0.0000000001",
        "0",
        "3.3333333333",
        "-99999999999999999999.9999999999",
        "1.5",
        "2.5",
        "-7.125"
    };
    static final double[] DOUBLES = {0.1, 1.0 / 3, 123456.789012345, -98765.4321, 1e-7, 2.5, -0.2, 0.7};
    static final String[] DATETIMES = {
        "2024-01-01 00:00:00.000001",
        "2024-01-01 00:00:00",
        "1970-01-01 00:00:01.5",
        "2038-01-19 03:14:07.999999",
        "2024-02-29 12:34:56.123456",
        "2024-02-29 12:34:56.123455"
    };
    static final long[] BIGS = {MAX, MIN, MAX - 1, MIN + 1, 0, 1, -1, 4_611_686_018_427_387_904L};

    /** The ids of hi: 0, +-2^63 edges, negatives and 1..60. */
    static final List<Long> HI_IDS = hiIds();
    /** The keys of hs: distinct under utf8mb4_general_ci, so a lookup by {@code 'k'} or {@code 'S'} must find them. */
    static final List<String> HS_KEYS = hsKeys();

    static final List<Long> RG_IDS = rgIds();

    private DifferentialSchema() {}

    private static List<Long> hiIds() {
        List<Long> ids = new ArrayList<>(List.of(MIN, MIN + 1, -42L, -1L, 0L, MAX, MAX - 1));
        for (long i = 1; i <= 60; i++) {
            ids.add(i);
        }
        return List.copyOf(ids);
    }

    private static List<String> hsKeys() {
        List<String> keys = new ArrayList<>(List.of("k ", "ß", "é", "Ab", "", "ü", "Zed"));
        for (int i = 1; i <= 30; i++) {
            keys.add("x" + i);
        }
        return List.copyOf(keys);
    }

    private static List<Long> rgIds() {
        List<Long> ids = new ArrayList<>(List.of(MIN, -500L, -1L, 0L, 999L, 1000L, MAX));
        for (long i = 1; i <= 60; i++) {
            ids.add(i * 37 % 1600 + 1); // 38, 75, ... spread over the three ranges
        }
        return List.copyOf(ids.stream().distinct().toList());
    }

    /** The initial rows of every table, each a list of Java values (Long, Integer, String, BigDecimal, Double, null). */
    static Map<Table, List<List<Object>>> rows() {
        Random r = new Random(20_261_127L);
        Map<Table, List<List<Object>>> out = new LinkedHashMap<>();
        List<List<Object>> hi = new ArrayList<>();
        for (long id : HI_IDS) {
            hi.add(java.util.Arrays.asList(
                    id,
                    grp(r),
                    trap(r),
                    trap(r),
                    trap(r),
                    dec(r),
                    dbl(r),
                    dt(r),
                    r.nextInt(8) == 0 ? null : BIGS[r.nextInt(BIGS.length)]));
        }
        out.put(HI, hi);
        List<List<Object>> hc = new ArrayList<>();
        for (int id = 1; id <= 150; id++) {
            long pid = r.nextInt(10) == 0 ? 1000L + r.nextInt(5) : HI_IDS.get(r.nextInt(HI_IDS.size()));
            hc.add(java.util.Arrays.asList(pid, id, r.nextInt(8) == 0 ? null : r.nextInt(10), trap(r), dec(r)));
        }
        out.put(HC, hc);
        List<List<Object>> hs = new ArrayList<>();
        for (String k : HS_KEYS) {
            hs.add(java.util.Arrays.asList(k, grp(r), trap(r), dec(r), dbl(r)));
        }
        out.put(HS, hs);
        List<List<Object>> rg = new ArrayList<>();
        for (long id : RG_IDS) {
            rg.add(java.util.Arrays.asList(id, grp(r), trap(r), dec(r), dbl(r), dt(r)));
        }
        out.put(RG, rg);
        List<List<Object>> br = new ArrayList<>();
        String[] codes = {"AA", "bb", "Cc", "é", "k ", "zz", "ß"};
        for (int i = 0; i < codes.length; i++) {
            br.add(java.util.Arrays.asList(codes[i], trap(r), i == 6 ? null : i % 5 - 1));
        }
        out.put(BR, br);
        List<List<Object>> un = new ArrayList<>();
        for (int id = 1; id <= 20; id++) {
            un.add(java.util.Arrays.asList(id, trap(r), grp(r), dec(r)));
        }
        out.put(UN, un);
        return out;
    }

    static Integer grp(Random r) {
        return r.nextInt(10) == 0 ? null : r.nextInt(6) - 1;
    }

    static String trap(Random r) {
        return r.nextInt(10) == 0 ? null : TRAPS[r.nextInt(TRAPS.length)];
    }

    static BigDecimal dec(Random r) {
        return r.nextInt(10) == 0 ? null : new BigDecimal(DECIMALS[r.nextInt(DECIMALS.length)]);
    }

    static Double dbl(Random r) {
        return r.nextInt(10) == 0 ? null : DOUBLES[r.nextInt(DOUBLES.length)];
    }

    static Object dt(Random r) {
        return r.nextInt(10) == 0 ? null : new Literal.DateTime(DATETIMES[r.nextInt(DATETIMES.length)]);
    }
}
