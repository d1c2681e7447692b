package io.shardgate.protocol.type;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Collation ids (the character_set byte of Protocol::HandshakeV10, HandshakeResponse41 and
 * ColumnDefinition41) and their names, for SET NAMES and for the handshake character set.
 *
 * <p>The table ({@code collations.txt} next to this class) was generated from MariaDB 10.11 and
 * extended with MySQL 8.0's utf8mb4_0900 collations; ids below 256 are shared by both servers.
 */
public final class Collations {
    public static final int LATIN1_SWEDISH_CI = 8;
    public static final int UTF8MB3_GENERAL_CI = 33;
    public static final int UTF8MB4_GENERAL_CI = 45;
    public static final int UTF8MB4_BIN = 46;
    public static final int BINARY = 63;
    public static final int UTF8MB4_0900_AI_CI = 255;

    private static final Map<String, Integer> ID_BY_NAME;
    private static final Map<Integer, String> NAME_BY_ID;
    private static final Map<Integer, String> CHARSET_BY_ID;
    private static final Map<String, Integer> DEFAULT_BY_CHARSET;

    static {
        Map<String, Integer> idByName = new HashMap<>();
        Map<Integer, String> nameById = new HashMap<>();
        Map<Integer, String> charsetById = new HashMap<>();
        Map<String, Integer> defaultByCharset = new HashMap<>();
        try (InputStream in = Collations.class.getResourceAsStream("collations.txt")) {
            if (in == null) {
                throw new IllegalStateException("collations.txt missing from the class path");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.trim().split(" ");
                int id = Integer.parseInt(f[0]);
                idByName.put(f[1], id);
                nameById.put(id, f[1]);
                charsetById.put(id, f[2]);
                if (f.length > 3 && f[3].equals("default")) {
                    defaultByCharset.put(f[2], id);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ID_BY_NAME = Map.copyOf(idByName);
        NAME_BY_ID = Map.copyOf(nameById);
        CHARSET_BY_ID = Map.copyOf(charsetById);
        DEFAULT_BY_CHARSET = Map.copyOf(defaultByCharset);
    }

    private Collations() {}

    /** The id of a collation name such as {@code utf8mb4_bin} (case-insensitive; utf8_ means utf8mb3_). */
    public static OptionalInt idOf(String collationName) {
        Integer id = ID_BY_NAME.get(canonical(collationName));
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /**
     * The id of a character set's compiled default collation (utf8mb4 gives utf8mb4_general_ci, the
     * default of MariaDB and MySQL 5.7; MySQL 8.0 servers default to utf8mb4_0900_ai_ci instead).
     */
    public static OptionalInt defaultIdOf(String charsetName) {
        Integer id = DEFAULT_BY_CHARSET.get(canonical(charsetName));
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /**
     * The collation id selected by {@code SET NAMES charset [COLLATE collation]}: the collation when
     * given and belonging to the character set, otherwise the character set's default.
     */
    public static OptionalInt forSetNames(String charsetName, String collationNameOrNull) {
        if (collationNameOrNull == null) {
            return defaultIdOf(charsetName);
        }
        OptionalInt id = idOf(collationNameOrNull);
        if (id.isEmpty() || !CHARSET_BY_ID.get(id.getAsInt()).equals(canonical(charsetName))) {
            return OptionalInt.empty();
        }
        return id;
    }

    /** The name of a collation id, or {@code null} when unknown. */
    public static String nameOf(int id) {
        return NAME_BY_ID.get(id);
    }

    /** The character set name of a collation id, or {@code null} when unknown. */
    public static String charsetOf(int id) {
        return CHARSET_BY_ID.get(id);
    }

    private static String canonical(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.length() >= 2 && (n.charAt(0) == '\'' || n.charAt(0) == '"' || n.charAt(0) == '`')) {
            n = n.substring(1, n.length() - 1);
        }
        if (n.equals("utf8")) {
            return "utf8mb3";
        }
        return n.startsWith("utf8_") ? "utf8mb3_" + n.substring(5) : n;
    }
}
