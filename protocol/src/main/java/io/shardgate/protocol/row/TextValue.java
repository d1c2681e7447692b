package io.shardgate.protocol.row;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.shardgate.protocol.type.MySqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;

/**
 * One value of a text result row (Text Resultset Row: every value is a length-encoded string of its
 * text form, 0xFB for NULL), as a Java value by its column type; see the package description for
 * the mapping.
 */
public final class TextValue {
    /** DECIMAL columns with this many decimals have no fixed scale (NOT_FIXED_DEC). */
    static final int NOT_FIXED_DEC = 31;

    private TextValue() {}

    /** The Java value of {@code text}, the bytes of one non-NULL value. */
    public static Object parse(byte[] text, MySqlType type, boolean unsigned) {
        try {
            return switch (type) {
                case TINY, SHORT, INT24, LONG, YEAR -> Long.parseLong(ascii(text));
                case LONGLONG -> unsigned ? new BigInteger(ascii(text)) : (Object) Long.parseLong(ascii(text));
                case FLOAT -> Float.parseFloat(ascii(text));
                case DOUBLE -> Double.parseDouble(ascii(text));
                case DECIMAL, NEWDECIMAL -> new BigDecimal(ascii(text));
                case DATE, NEWDATE, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2 ->
                    TemporalText.parseDateTime(ascii(text));
                case TIME, TIME2 -> TemporalText.parseTime(ascii(text));
                case NULL -> null;
                default -> text;
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a " + type + " value: '" + ascii(text) + "'", e);
        }
    }

    /**
     * The text form of {@code value} for a column of {@code type}; {@code decimals} sets the fraction
     * digits of temporal values and the scale of DECIMAL (31 keeps the value's own scale).
     */
    public static byte[] format(Object value, MySqlType type, int decimals) {
        return switch (type) {
            case TINY, SHORT, INT24, LONG, YEAR, LONGLONG -> ascii(value.toString());
            case FLOAT -> ascii(FloatingText.format(((Number) value).floatValue(), true));
            case DOUBLE -> ascii(FloatingText.format(((Number) value).doubleValue(), false));
            case DECIMAL, NEWDECIMAL ->
                ascii(scaled((BigDecimal) value, decimals).toPlainString());
            case DATE, NEWDATE -> ascii(TemporalText.format((MySqlDateTime) value, true, 0));
            case DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2 ->
                ascii(TemporalText.format((MySqlDateTime) value, false, decimals));
            case TIME, TIME2 -> ascii(TemporalText.format((Duration) value, decimals));
            default -> (byte[]) value;
        };
    }

    static BigDecimal scaled(BigDecimal value, int decimals) {
        return decimals >= NOT_FIXED_DEC || decimals == value.scale()
                ? value
                : value.setScale(decimals, java.math.RoundingMode.HALF_UP);
    }

    private static String ascii(byte[] b) {
        return new String(b, US_ASCII);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(US_ASCII);
    }
}
