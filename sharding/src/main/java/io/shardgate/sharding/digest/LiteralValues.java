package io.shardgate.sharding.digest;

import java.math.BigInteger;

/** Decodes the source text of string, hex and bit literals into values, as the MySQL lexer does. */
final class LiteralValues {
    private LiteralValues() {}

    /** {@code 'it''s'}, {@code "a\"b"}, {@code N'x'}, {@code _utf8mb4'x'}: the characters between the quotes. */
    static String string(String s) {
        int open = 0;
        while (s.charAt(open) != '\'' && s.charAt(open) != '"') {
            open++; // skip an N or _charset introducer
        }
        char quote = s.charAt(open);
        int end = s.length() - 1; // closing quote (an unterminated literal has none; keep its last char)
        if (end <= open || s.charAt(end) != quote) {
            end = s.length();
        }
        StringBuilder b = new StringBuilder(end - open);
        for (int i = open + 1; i < end; i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < end) {
                char e = s.charAt(++i);
                switch (e) {
                    case '0' -> b.append('\0');
                    case 'b' -> b.append('\b');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'Z' -> b.append('\u001a');
                    // \% and \_ keep their backslash: they are LIKE-pattern escapes
                    case '%', '_' -> b.append('\\').append(e);
                    default -> b.append(e);
                }
            } else if (c == quote && i + 1 < end && s.charAt(i + 1) == quote) {
                b.append(quote);
                i++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * The integer literal {@code sql[start, end)}: an optional sign, optional spaces, digits. A
     * {@link Long} without an intermediate String (every point select decodes one on the hot
     * path), a {@link BigInteger} past the long range.
     */
    static Object integer(String sql, int start, int end) {
        int i = start;
        boolean negative = false;
        if (sql.charAt(i) == '-' || sql.charAt(i) == '+') {
            negative = sql.charAt(i) == '-';
            i++;
            while (Character.isWhitespace(sql.charAt(i))) {
                i++;
            }
        }
        long value = 0; // accumulated negatively: Long.MIN_VALUE has no positive counterpart
        for (; i < end; i++) {
            int digit = sql.charAt(i) - '0';
            if (value < (Long.MIN_VALUE + digit) / 10) {
                return new BigInteger(withoutSpaces(sql, start, end));
            }
            value = value * 10 - digit;
        }
        if (!negative && value == Long.MIN_VALUE) {
            return new BigInteger(withoutSpaces(sql, start, end));
        }
        return negative ? value : -value;
    }

    /** {@code sql[start, end)} without its whitespace (between a unary sign and a number). */
    static String withoutSpaces(String sql, int start, int end) {
        StringBuilder b = new StringBuilder(end - start);
        for (int i = start; i < end; i++) {
            char c = sql.charAt(i);
            if (!Character.isWhitespace(c)) {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** {@code X'0a1B'} or {@code 0x0a1b}: the bytes (an odd digit count gets a leading zero). */
    static byte[] hex(String s) {
        String digits = s.charAt(0) == '0' ? s.substring(2) : s.substring(2, s.length() - 1);
        if (digits.length() % 2 == 1) {
            digits = "0" + digits;
        }
        byte[] bytes = new byte[digits.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    /** {@code B'101'} or {@code 0b101}: the bits as big-endian bytes, as few as hold them. */
    static byte[] bits(String s) {
        String digits = s.charAt(0) == '0' ? s.substring(2) : s.substring(2, s.length() - 1);
        if (digits.isEmpty()) {
            return new byte[0];
        }
        byte[] raw = new BigInteger(digits, 2).toByteArray();
        int len = (digits.length() + 7) / 8;
        byte[] bytes = new byte[len];
        int copy = Math.min(len, raw.length);
        System.arraycopy(raw, raw.length - copy, bytes, len - copy, copy);
        return bytes;
    }
}
