package io.shardgate.protocol.row;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Comparator;

/**
 * A DATE, DATETIME or TIMESTAMP value as MySQL has it (MYSQL_TIME without the TIME case): field by
 * field, so that zero dates ('0000-00-00') and partial dates ('2024-00-00'), which java.time cannot
 * hold, survive decoding and encoding unchanged.
 *
 * @param microsecond 0..999999
 */
public record MySqlDateTime(int year, int month, int day, int hour, int minute, int second, int microsecond)
        implements Comparable<MySqlDateTime> {
    /** The zero date '0000-00-00 00:00:00'. */
    public static final MySqlDateTime ZERO = new MySqlDateTime(0, 0, 0, 0, 0, 0, 0);

    private static final Comparator<MySqlDateTime> ORDER = Comparator.comparingInt(MySqlDateTime::year)
            .thenComparingInt(MySqlDateTime::month)
            .thenComparingInt(MySqlDateTime::day)
            .thenComparingInt(MySqlDateTime::hour)
            .thenComparingInt(MySqlDateTime::minute)
            .thenComparingInt(MySqlDateTime::second)
            .thenComparingInt(MySqlDateTime::microsecond);

    public MySqlDateTime {
        if (year < 0
                || year > 9999
                || month < 0
                || month > 12
                || day < 0
                || day > 31
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59
                || microsecond < 0
                || microsecond > 999_999) {
            throw new IllegalArgumentException("not a MySQL date/time: " + year + "-" + month + "-" + day + " " + hour
                    + ":" + minute + ":" + second + "." + microsecond);
        }
    }

    /** The value of a java.time date. */
    public static MySqlDateTime of(LocalDate date) {
        return new MySqlDateTime(date.getYear(), date.getMonthValue(), date.getDayOfMonth(), 0, 0, 0, 0);
    }

    /** The value of a java.time date-time, truncated to microseconds. */
    public static MySqlDateTime of(LocalDateTime t) {
        return new MySqlDateTime(
                t.getYear(),
                t.getMonthValue(),
                t.getDayOfMonth(),
                t.getHour(),
                t.getMinute(),
                t.getSecond(),
                t.getNano() / 1000);
    }

    /** Whether the time-of-day part is 00:00:00.000000. */
    public boolean isMidnight() {
        return hour == 0 && minute == 0 && second == 0 && microsecond == 0;
    }

    /** Whether this is a valid calendar date that java.time can hold (not a zero or partial date). */
    public boolean isValidDate() {
        if (year < 1 || month < 1 || day < 1) {
            return false;
        }
        return day <= LocalDate.of(year, month, 1).lengthOfMonth();
    }

    /** As a java.time value; zero and partial dates throw {@link java.time.DateTimeException}. */
    public LocalDateTime toLocalDateTime() {
        return LocalDateTime.of(LocalDate.of(year, month, day), LocalTime.of(hour, minute, second, microsecond * 1000));
    }

    @Override
    public int compareTo(MySqlDateTime other) {
        return ORDER.compare(this, other);
    }
}
