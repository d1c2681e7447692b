package io.shardgate.protocol.type;

/** Column definition flags (the int&lt;2&gt; flags of Protocol::ColumnDefinition41). */
public final class ColumnFlags {
    /** The column cannot be NULL. */
    public static final int NOT_NULL_FLAG = 1;
    /** Part of the primary key. */
    public static final int PRI_KEY_FLAG = 1 << 1;
    /** Part of a unique key. */
    public static final int UNIQUE_KEY_FLAG = 1 << 2;
    /** Part of a non-unique key. */
    public static final int MULTIPLE_KEY_FLAG = 1 << 3;
    /** A BLOB or TEXT column. */
    public static final int BLOB_FLAG = 1 << 4;
    /** An unsigned numeric column. */
    public static final int UNSIGNED_FLAG = 1 << 5;
    /** ZEROFILL. */
    public static final int ZEROFILL_FLAG = 1 << 6;
    /** Binary collation (the value is bytes, not text). */
    public static final int BINARY_FLAG = 1 << 7;
    /** An ENUM column. */
    public static final int ENUM_FLAG = 1 << 8;
    /** AUTO_INCREMENT. */
    public static final int AUTO_INCREMENT_FLAG = 1 << 9;
    /** A TIMESTAMP column. */
    public static final int TIMESTAMP_FLAG = 1 << 10;
    /** A SET column. */
    public static final int SET_FLAG = 1 << 11;
    /** The column has no default value. */
    public static final int NO_DEFAULT_VALUE_FLAG = 1 << 12;
    /** ON UPDATE CURRENT_TIMESTAMP. */
    public static final int ON_UPDATE_NOW_FLAG = 1 << 13;
    /** Part of some key (intern). */
    public static final int PART_KEY_FLAG = 1 << 14;
    /** A numeric column (shares its bit with GROUP_FLAG). */
    public static final int NUM_FLAG = 1 << 15;

    private ColumnFlags() {}

    /** Whether {@code flags} has every bit of {@code flag}. */
    public static boolean has(int flags, int flag) {
        return (flags & flag) == flag;
    }
}
