package io.shardgate.protocol.type;

/**
 * Column and parameter type codes (enum_field_types) of Protocol::ColumnDefinition41 and the binary
 * protocol; the internal codes TIMESTAMP2, DATETIME2, TIME2, TYPED_ARRAY, INVALID and BOOL never
 * appear on the wire of a well-behaved server but are listed so every code decodes.
 */
public enum MySqlType {
    DECIMAL(0x00),
    TINY(0x01),
    SHORT(0x02),
    LONG(0x03),
    FLOAT(0x04),
    DOUBLE(0x05),
    NULL(0x06),
    TIMESTAMP(0x07),
    LONGLONG(0x08),
    INT24(0x09),
    DATE(0x0A),
    TIME(0x0B),
    DATETIME(0x0C),
    YEAR(0x0D),
    NEWDATE(0x0E),
    VARCHAR(0x0F),
    BIT(0x10),
    TIMESTAMP2(0x11),
    DATETIME2(0x12),
    TIME2(0x13),
    TYPED_ARRAY(0x14),
    /** MySQL 9.0 VECTOR: a blob of little-endian floats. */
    VECTOR(0xF2),
    INVALID(0xF3),
    BOOL(0xF4),
    JSON(0xF5),
    NEWDECIMAL(0xF6),
    ENUM(0xF7),
    SET(0xF8),
    TINY_BLOB(0xF9),
    MEDIUM_BLOB(0xFA),
    LONG_BLOB(0xFB),
    BLOB(0xFC),
    VAR_STRING(0xFD),
    STRING(0xFE),
    GEOMETRY(0xFF);

    private static final MySqlType[] BY_CODE = new MySqlType[256];

    static {
        for (MySqlType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MySqlType(int code) {
        this.code = code;
    }

    /** The type byte. */
    public int code() {
        return code;
    }

    /** The type with this byte (0..255), or {@code null} when there is none. */
    public static MySqlType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
