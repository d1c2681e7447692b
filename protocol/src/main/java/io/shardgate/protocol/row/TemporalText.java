package io.shardgate.protocol.row;

import java.time.Duration;

/**
 * The text forms of temporal values in a text result row (Text Resultset Row): 'YYYY-MM-DD',
 * 'YYYY-MM-DD hh:mm:ss[.ffffff]' and '[-]hhh:mm:ss[.ffffff]'.
 */
final class TemporalText {
    private TemporalText() {}

    static MySqlDateTime parseDateTime(String s) {
        try {
            int year = Integer.parseInt(s, 0, 4, 10);
            int month = Integer.parseInt(s, 5, 7, 10);
            int day = Integer.parseInt(s, 8, 10, 10);
            if (s.length() == 10) {
                return new MySqlDateTime(year, month, day, 0, 0, 0, 0);
            }
            int hour = Integer.parseInt(s, 11, 13, 10);
            int minute = Integer.parseInt(s, 14, 16, 10);
            int second = Integer.parseInt(s, 17, 19, 10);
            return new MySqlDateTime(year, month, day, hour, minute, second, micros(s, 19));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("not a MySQL date/time: '" + s + "'", e);
        }
    }

    static Duration parseTime(String s) {
        try {
            boolean negative = s.startsWith("-");
            int start = negative ? 1 : 0;
            int colon = s.indexOf(':', start);
            long hours = Long.parseLong(s, start, colon, 10);
            int minutes = Integer.parseInt(s, colon + 1, colon + 3, 10);
            int seconds = Integer.parseInt(s, colon + 4, colon + 6, 10);
            Duration d = Duration.ofHours(hours)
                    .plusMinutes(minutes)
                    .plusSeconds(seconds)
                    .plusNanos(micros(s, colon + 6) * 1000L);
            return negative ? d.negated() : d;
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("not a MySQL time: '" + s + "'", e);
        }
    }

    /** The microseconds of an optional '.f' to '.ffffff' suffix at {@code dot}. */
    private static int micros(String s, int dot) {
        if (s.length() <= dot) {
            return 0;
        }
        if (s.charAt(dot) != '.') {
            throw new IllegalArgumentException("unexpected '" + s.substring(dot) + "' in '" + s + "'");
        }
        String digits = s.substring(dot + 1);
        if (digits.isEmpty() || digits.length() > 6) {
            throw new IllegalArgumentException("bad fraction in '" + s + "'");
        }
        return Integer.parseInt(digits) * (int) Math.pow(10, 6 - digits.length());
    }

    /** DATE when {@code dateOnly}, else DATETIME with {@code decimals} fraction digits (0..6). */
    static String format(MySqlDateTime t, boolean dateOnly, int decimals) {
        StringBuilder sb = new StringBuilder(26);
        pad(sb, t.year(), 4).append('-');
        pad(sb, t.month(), 2).append('-');
        pad(sb, t.day(), 2);
        if (dateOnly) {
            return sb.toString();
        }
        sb.append(' ');
        pad(sb, t.hour(), 2).append(':');
        pad(sb, t.minute(), 2).append(':');
        pad(sb, t.second(), 2);
        fraction(sb, t.microsecond(), decimals);
        return sb.toString();
    }

    /** TIME with {@code decimals} fraction digits (0..6); hours may exceed 24. */
    static String format(Duration d, int decimals) {
        StringBuilder sb = new StringBuilder(18);
        if (d.isNegative()) {
            sb.append('-');
            d = d.negated();
        }
        pad(sb, d.toHours(), 2).append(':');
        pad(sb, d.toMinutesPart(), 2).append(':');
        pad(sb, d.toSecondsPart(), 2);
        fraction(sb, d.toNanosPart() / 1000, decimals);
        return sb.toString();
    }

    private static void fraction(StringBuilder sb, int micros, int decimals) {
        if (decimals > 0) {
            String six = String.valueOf(1_000_000 + micros).substring(1);
            sb.append('.').append(six, 0, Math.min(decimals, 6));
        }
    }

    private static StringBuilder pad(StringBuilder sb, long value, int width) {
        String s = Long.toString(value);
        for (int i = s.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(s);
    }
}
