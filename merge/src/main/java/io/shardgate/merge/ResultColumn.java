package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;
import java.nio.charset.StandardCharsets;

/**
 * One column of a shard's result set (Protocol::ColumnDefinition41): the payload as the backend
 * sent it, for relaying, and the fields the merge needs, read from the fixed-length block that ends
 * the payload (0x0C, character set int&lt;2&gt;, length int&lt;4&gt;, type, flags int&lt;2&gt;,
 * decimals, 2 filler bytes). Reading from the end keeps the merge independent of whether MariaDB's
 * extended type info was negotiated, which sits before that block.
 */
record ResultColumn(ByteBuf payload, int characterSet, long length, MySqlType type, int flags, int decimals) {
    static final int FIXED_BLOCK = 13;
    static final int FIXED_LENGTH = 0x0C;

    /** Neither retains nor releases {@code payload}; the column keeps a reference to it. */
    static ResultColumn read(ByteBuf payload, int shard, int column) {
        int end = payload.writerIndex();
        int fixed = end - FIXED_BLOCK;
        if (fixed < payload.readerIndex() + 6 || payload.getUnsignedByte(fixed) != FIXED_LENGTH) {
            throw new MergeException("shard " + (shard + 1) + " sent a malformed definition of column " + (column + 1));
        }
        MySqlType type = MySqlType.of(payload.getUnsignedByte(fixed + 7));
        if (type == null) {
            throw new MergeException("shard " + (shard + 1) + " sent unknown type 0x"
                    + Integer.toHexString(payload.getUnsignedByte(fixed + 7)) + " for column " + (column + 1));
        }
        return new ResultColumn(
                payload,
                payload.getUnsignedShortLE(fixed + 1),
                payload.getUnsignedIntLE(fixed + 3),
                type,
                payload.getUnsignedShortLE(fixed + 8),
                payload.getUnsignedByte(fixed + 10));
    }

    /** The column's name (its alias, or the expression's text) as the shard sent it. */
    String name() {
        ByteBuf in = payload.duplicate();
        for (int i = 0; i < 4; i++) {
            LengthEncoded.skip(in); // catalog, schema, table, org_table
        }
        return LengthEncoded.readString(in, StandardCharsets.UTF_8);
    }

    boolean unsigned() {
        return ColumnFlags.has(flags, ColumnFlags.UNSIGNED_FLAG);
    }

    /** This column with another type, length, decimals and flags (the definition of a merged AVG). */
    ResultColumn retyped(MySqlType newType, long newLength, int newDecimals, int newFlags) {
        return new ResultColumn(payload, characterSet, newLength, newType, newFlags, newDecimals);
    }
}
