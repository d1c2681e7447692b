package io.shardgate.move.binlog;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Decodes the bytes of a CHAR or VARCHAR value in a binary log row image (the column's character
 * set, which the log does not carry) into the Java string that, bound as a parameter, names the same
 * characters on the server. Only character sets whose MySQL mapping is known to equal Java's are
 * listed; any other is refused, because a wrong decoding would look up another row.
 */
final class MySqlCharsets {

    private static final Map<String, Charset> JAVA = Map.of(
            "utf8mb4", StandardCharsets.UTF_8,
            "utf8mb3", StandardCharsets.UTF_8,
            "utf8", StandardCharsets.UTF_8,
            "ascii", StandardCharsets.US_ASCII,
            // UCS-2, UTF-16 and UTF-32 are big-endian in MySQL; the plain "UTF-16" decoder would eat a
            // leading U+FEFF as a byte order mark
            "ucs2", StandardCharsets.UTF_16BE,
            "utf16", StandardCharsets.UTF_16BE,
            "utf16le", StandardCharsets.UTF_16LE,
            "utf32", Charset.forName("UTF-32BE"),
            "cp1251", Charset.forName("windows-1251"));

    /**
     * MySQL's latin1 is Windows-1252 with its five undefined bytes (0x81, 0x8D, 0x8F, 0x90, 0x9D)
     * mapped to the C1 controls of the same number; Java's windows-1252 cannot decode those.
     */
    private static final char[] LATIN1 = latin1();

    private MySqlCharsets() {}

    /** Whether values of a column in MySQL character set {@code name} can be decoded exactly. */
    static boolean supported(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        return key.equals("latin1") || key.equals("binary") || JAVA.containsKey(key);
    }

    /** The names {@link #supported} accepts, for a refusal's message. */
    static String supportedNames() {
        return "utf8mb4, utf8mb3, utf8, latin1, ascii, ucs2, utf16, utf16le, utf32, cp1251, binary";
    }

    /**
     * The characters {@code bytes} encode in MySQL character set {@code name}, or the bytes themselves
     * for {@code binary}.
     *
     * @throws IllegalStateException when the bytes are not a valid value of that character set or
     *     do not encode back to the same bytes (then no string names this value exactly)
     */
    static Object decode(String name, byte[] bytes) {
        String key = name.toLowerCase(Locale.ROOT);
        if (key.equals("binary")) {
            return bytes.clone();
        }
        if (key.equals("latin1")) {
            char[] chars = new char[bytes.length];
            for (int i = 0; i < bytes.length; i++) {
                chars[i] = LATIN1[bytes[i] & 0xFF];
            }
            return new String(chars);
        }
        Charset charset = Optional.ofNullable(JAVA.get(key))
                .orElseThrow(() -> new IllegalArgumentException("character set " + name + " is not supported"));
        try {
            String text = charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            ByteBuffer back = charset.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            byte[] encoded = Arrays.copyOfRange(back.array(), back.arrayOffset(), back.arrayOffset() + back.limit());
            if (!Arrays.equals(encoded, bytes)) {
                throw new IllegalStateException(describe(name, bytes) + " does not encode back to the same bytes");
            }
            return text;
        } catch (CharacterCodingException e) {
            throw new IllegalStateException(describe(name, bytes) + " is not valid " + name, e);
        }
    }

    private static String describe(String name, byte[] bytes) {
        return "the " + name + " value 0x" + java.util.HexFormat.of().formatHex(bytes);
    }

    private static char[] latin1() {
        char[] table = new char[256];
        Charset cp1252 = Charset.forName("windows-1252");
        for (int b = 0; b < 256; b++) {
            String decoded = new String(new byte[] {(byte) b}, cp1252);
            table[b] = decoded.charAt(0) == '\uFFFD' ? (char) b : decoded.charAt(0);
        }
        return table;
    }
}
