package io.shardgate.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;

/**
 * The column count that opens a text or binary result set (Protocol::COM_QUERY_Response,
 * column_count int&lt;lenenc&gt;), followed by metadata_follows int&lt;1&gt; under MySQL's
 * CLIENT_OPTIONAL_RESULTSET_METADATA or MariaDB's MARIADB_CLIENT_CACHE_METADATA.
 *
 * @param metadataFollows false when the server omits the column definitions (RESULTSET_METADATA_NONE)
 */
public record ColumnCount(int count, boolean metadataFollows) {
    /** A count followed by column definitions. */
    public ColumnCount(int count) {
        this(count, true);
    }

    /** Reads a payload positioned at its first byte; neither retains nor releases {@code in}. */
    public static ColumnCount read(ByteBuf in, Capabilities caps) {
        long count = LengthEncoded.readInt(in);
        if (count <= 0 || count > 0xFFFF) {
            throw new MalformedPacketException("column count out of range: " + count);
        }
        boolean metadata = true;
        if (hasMetadataFlag(caps)) {
            if (!in.isReadable()) {
                throw new MalformedPacketException("truncated column count: metadata_follows missing");
            }
            metadata = in.readUnsignedByte() != 0;
        }
        return new ColumnCount((int) count, metadata);
    }

    /** Writes the payload; neither retains nor releases {@code out}. */
    public void write(ByteBuf out, Capabilities caps) {
        LengthEncoded.writeInt(out, count);
        if (hasMetadataFlag(caps)) {
            out.writeByte(metadataFollows ? 1 : 0);
        }
    }

    private static boolean hasMetadataFlag(Capabilities caps) {
        return caps.has(CapabilityFlags.CLIENT_OPTIONAL_RESULTSET_METADATA)
                || caps.hasMariaDb(CapabilityFlags.MARIADB_CLIENT_CACHE_METADATA);
    }
}
