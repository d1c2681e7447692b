package io.shardgate.protocol.row;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.MySqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;

/**
 * One value in the binary protocol (Binary Protocol Value), shared by binary result rows and
 * COM_STMT_EXECUTE parameters: little-endian integers and IEEE floats, DATE/DATETIME/TIMESTAMP with a
 * length byte of 0, 4, 7 or 11, TIME with 0, 8 or 12, and length-encoded strings for the rest
 * (DECIMAL as its text). See the package description for the Java types.
 */
public final class BinaryValue {
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private BinaryValue() {}

    /** Reads one non-NULL value; neither retains nor releases {@code in}. */
    public static Object read(ByteBuf in, MySqlType type, boolean unsigned) {
        try {
            return switch (type) {
                case TINY -> unsigned ? (long) in.readUnsignedByte() : (long) in.readByte();
                case SHORT -> unsigned ? (long) in.readUnsignedShortLE() : (long) in.readShortLE();
                case YEAR -> (long) in.readUnsignedShortLE();
                case INT24, LONG -> unsigned ? in.readUnsignedIntLE() : (long) in.readIntLE();
                case LONGLONG -> unsigned ? unsignedLong(in.readLongLE()) : (Object) in.readLongLE();
                case FLOAT -> in.readFloatLE();
                case DOUBLE -> in.readDoubleLE();
                case DECIMAL, NEWDECIMAL -> new BigDecimal(LengthEncoded.readString(in, US_ASCII));
                case DATE, NEWDATE, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2 -> readDateTime(in);
                case TIME, TIME2 -> readTime(in);
                case NULL -> null;
                default -> LengthEncoded.readBytes(in);
            };
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("binary " + type + " value", e);
        } catch (IllegalArgumentException e) {
            throw new MalformedPacketException("bad binary " + type + " value: " + e.getMessage(), e);
        }
    }

    /** Writes one non-NULL value in the shortest form; neither retains nor releases {@code out}. */
    public static void write(ByteBuf out, Object value, MySqlType type) {
        switch (type) {
            case TINY -> out.writeByte((int) ((Number) value).longValue());
            case SHORT, YEAR -> out.writeShortLE((int) ((Number) value).longValue());
            case INT24, LONG -> out.writeIntLE((int) ((Number) value).longValue());
            case LONGLONG -> out.writeLongLE(((Number) value).longValue());
            case FLOAT -> out.writeFloatLE(((Number) value).floatValue());
            case DOUBLE -> out.writeDoubleLE(((Number) value).doubleValue());
            case DECIMAL, NEWDECIMAL -> LengthEncoded.writeString(out, ((BigDecimal) value).toPlainString(), US_ASCII);
            case DATE, NEWDATE, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2 -> writeDateTime(out, (MySqlDateTime) value);
            case TIME, TIME2 -> writeTime(out, (Duration) value);
            case NULL -> {
                // a NULL value takes no bytes; the NULL bitmap says it is there
            }
            default -> LengthEncoded.writeBytes(out, (byte[]) value);
        }
    }

    private static Object unsignedLong(long bits) {
        BigInteger v = BigInteger.valueOf(bits);
        return bits < 0 ? v.add(TWO_TO_64) : v;
    }

    private static MySqlDateTime readDateTime(ByteBuf in) {
        int length = in.readUnsignedByte();
        if (length != 0 && length != 4 && length != 7 && length != 11) {
            throw new MalformedPacketException("date/time value of length " + length);
        }
        if (length == 0) {
            return MySqlDateTime.ZERO;
        }
        int year = in.readUnsignedShortLE();
        int month = in.readUnsignedByte();
        int day = in.readUnsignedByte();
        int hour = 0;
        int minute = 0;
        int second = 0;
        int micros = 0;
        if (length >= 7) {
            hour = in.readUnsignedByte();
            minute = in.readUnsignedByte();
            second = in.readUnsignedByte();
        }
        if (length == 11) {
            micros = (int) in.readUnsignedIntLE();
        }
        return new MySqlDateTime(year, month, day, hour, minute, second, micros);
    }

    private static void writeDateTime(ByteBuf out, MySqlDateTime t) {
        int length = t.equals(MySqlDateTime.ZERO) ? 0 : t.isMidnight() ? 4 : t.microsecond() == 0 ? 7 : 11;
        out.writeByte(length);
        if (length == 0) {
            return;
        }
        out.writeShortLE(t.year()).writeByte(t.month()).writeByte(t.day());
        if (length >= 7) {
            out.writeByte(t.hour()).writeByte(t.minute()).writeByte(t.second());
        }
        if (length == 11) {
            out.writeIntLE(t.microsecond());
        }
    }

    private static Duration readTime(ByteBuf in) {
        int length = in.readUnsignedByte();
        if (length != 0 && length != 8 && length != 12) {
            throw new MalformedPacketException("time value of length " + length);
        }
        if (length == 0) {
            return Duration.ZERO;
        }
        boolean negative = in.readByte() != 0;
        long days = in.readUnsignedIntLE();
        int hours = in.readUnsignedByte();
        int minutes = in.readUnsignedByte();
        int seconds = in.readUnsignedByte();
        long micros = length == 12 ? in.readUnsignedIntLE() : 0;
        Duration d = Duration.ofDays(days)
                .plusHours(hours)
                .plusMinutes(minutes)
                .plusSeconds(seconds)
                .plusNanos(micros * 1000);
        return negative ? d.negated() : d;
    }

    private static void writeTime(ByteBuf out, Duration value) {
        if (value.isZero()) {
            out.writeByte(0);
            return;
        }
        Duration d = value.isNegative() ? value.negated() : value;
        int micros = d.toNanosPart() / 1000;
        out.writeByte(micros == 0 ? 8 : 12);
        out.writeByte(value.isNegative() ? 1 : 0);
        out.writeIntLE((int) d.toDaysPart());
        out.writeByte(d.toHoursPart()).writeByte(d.toMinutesPart()).writeByte(d.toSecondsPart());
        if (micros != 0) {
            out.writeIntLE(micros);
        }
    }
}
