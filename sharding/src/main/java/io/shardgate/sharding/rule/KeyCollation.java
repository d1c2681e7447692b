package io.shardgate.sharding.rule;

import io.shardgate.protocol.codec.EscapedText;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How a {@link KeyType#STRING} key is compared, and therefore which strings are one key that must
 * live on one shard (YAML {@code key_collation}). Part of the on-disk contract like {@link KeyHash}:
 * the bytes hashed for a key are fixed here.
 *
 * <ul>
 *   <li>{@link #BINARY}: code point by code point ({@code *_bin} collations, {@code VARBINARY}); the
 *       key hashes as its UTF-8 bytes.
 *   <li>{@link #GENERAL_CI}: MariaDB's {@code utf8mb4_general_ci} / {@code utf8mb3_general_ci}: every
 *       code point has one 16-bit weight (case folded, most accents stripped, {@code ß} = {@code s}, every
 *       supplementary character U+FFFD), strings are equal when their weights are. The key hashes as
 *       its weights, two big-endian bytes each: exactly the server's {@code WEIGHT_STRING(k COLLATE
 *       utf8mb4_general_ci)}. The table is the server's own (resource {@code utf8mb4_general_ci.weights},
 *       checked against MariaDB for the whole BMP by an integration test).
 * </ul>
 *
 * Both drop trailing spaces first (PAD SPACE: {@code 'k'} = {@code 'k '}); under a NO PAD collation
 * the two are different keys that merely share a shard, which keeps routing correct.
 */
public enum KeyCollation {
    BINARY("binary"),
    GENERAL_CI("utf8mb4_general_ci");

    private static final int SPACE = ' ';

    private final String ruleName;

    KeyCollation(String ruleName) {
        this.ruleName = ruleName;
    }

    /** The name written in the rules. */
    public String ruleName() {
        return ruleName;
    }

    /** The names the rules accept, as listed in errors. */
    public static List<String> ruleNames() {
        return List.of(BINARY.ruleName, GENERAL_CI.ruleName);
    }

    /** The key collation named in a rule, or null: {@code binary}, {@code utf8mb4_general_ci} or its utf8mb3 twins. */
    public static KeyCollation ofRuleName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "binary" -> BINARY;
            case "utf8mb4_general_ci", "utf8mb3_general_ci", "utf8_general_ci" -> GENERAL_CI;
            default -> null;
        };
    }

    /**
     * Whether a column with {@code columnCollation} ({@code information_schema.COLUMNS.COLLATION_NAME},
     * null for binary strings) never holds two equal values that are different keys here: then the
     * shard of a key holds every row equal to it. A binary column fits both (equal values are the same
     * characters); a {@code general_ci} column fits {@link #GENERAL_CI}; their NO PAD twins fit too
     * (see the class comment). Any other collation can make strings equal that this one keeps apart
     * ({@code 'ß' = 'ss'} under {@code unicode_ci}).
     */
    public boolean fitsColumn(String columnCollation) {
        if (columnCollation == null) {
            return true;
        }
        String c = columnCollation.toLowerCase(Locale.ROOT);
        if (c.endsWith("_bin")) {
            return true;
        }
        return this == GENERAL_CI
                && (c.equals("utf8mb4_general_ci")
                        || c.equals("utf8mb3_general_ci")
                        || c.equals("utf8_general_ci")
                        || c.equals("utf8mb4_general_nopad_ci")
                        || c.equals("utf8mb3_general_nopad_ci")
                        || c.equals("utf8_general_nopad_ci"));
    }

    /** The bytes {@link KeyHash} hashes for a key already stripped of trailing spaces. */
    public byte[] keyBytes(String key) {
        if (this == BINARY) {
            // a binary value in the statement (bytes not valid in its charset) hashes as the bytes the server stores
            return EscapedText.bytes(key, StandardCharsets.UTF_8);
        }
        // such bytes in a text column are stored as '?' (or refused in strict mode)
        key = EscapedText.replaceEscapes(key, '?');
        byte[] out = new byte[2 * key.codePointCount(0, key.length())];
        int n = 0;
        for (int i = 0; i < key.length(); ) {
            int cp = key.codePointAt(i);
            i += Character.charCount(cp);
            char w = GeneralCiWeights.weight(cp);
            out[n++] = (byte) (w >>> 8);
            out[n++] = (byte) w;
        }
        // PAD SPACE: a trailing character weighing as a space is a space (the table has no other, but it is
        // the server's table, not ours)
        while (n >= 2 && ((out[n - 2] & 0xff) << 8 | (out[n - 1] & 0xff)) == SPACE) {
            n -= 2;
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** The utf8mb4_general_ci weight table, loaded once from the resource generated from the server. */
    static final class GeneralCiWeights {
        private static final char[] BMP = load();

        private GeneralCiWeights() {}

        static char weight(int codePoint) {
            return codePoint > 0xFFFF ? '\uFFFD' : BMP[codePoint];
        }

        private static char[] load() {
            char[] table = new char[0x10000];
            for (int i = 0; i < table.length; i++) {
                table[i] = (char) i;
            }
            try (InputStream in = KeyCollation.class.getResourceAsStream("utf8mb4_general_ci.weights")) {
                if (in == null) {
                    throw new IllegalStateException("resource utf8mb4_general_ci.weights is missing");
                }
                BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
                for (String line; (line = lines.readLine()) != null; ) {
                    if (line.isBlank() || line.startsWith("#")) {
                        continue;
                    }
                    int space = line.indexOf(' ');
                    table[Integer.parseInt(line, 0, space, 16)] =
                            (char) Integer.parseInt(line, space + 1, line.length(), 16);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return table;
        }
    }
}
