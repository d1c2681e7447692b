package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ColumnFlags;
import io.shardgate.protocol.type.MySqlType;

/**
 * Protocol::ColumnDefinition41 (server to client, one per result column or statement parameter):
 * catalog, schema, table, org_table, name, org_name (lenenc strings), a 0x0C-length block of
 * character set int&lt;2&gt;, column length int&lt;4&gt;, type int&lt;1&gt;, flags int&lt;2&gt;,
 * decimals int&lt;1&gt; and 2 filler bytes.
 *
 * <p>With MariaDB's MARIADB_CLIENT_EXTENDED_TYPE_INFO a block of extended type info (e.g. "json",
 * "uuid") sits between org_name and the fixed block; it is kept raw and otherwise ignored. The
 * default values that follow a COM_FIELD_LIST column definition are skipped.
 *
 * @param columnLength unsigned
 * @param mariaDbExtendedTypeInfo the raw extended type info without its length prefix, or null
 */
public record ColumnDefinition41(
        String catalog,
        String schema,
        String table,
        String orgTable,
        String name,
        String orgName,
        int characterSet,
        long columnLength,
        MySqlType type,
        int flags,
        int decimals,
        byte[] mariaDbExtendedTypeInfo) {
    private static final int FIXED_LENGTH = 0x0C;

    /** A column definition without MariaDB extended type info. */
    public ColumnDefinition41(
            String catalog,
            String schema,
            String table,
            String orgTable,
            String name,
            String orgName,
            int characterSet,
            long columnLength,
            MySqlType type,
            int flags,
            int decimals) {
        this(catalog, schema, table, orgTable, name, orgName, characterSet, columnLength, type, flags, decimals, null);
    }

    /** Whether the column is unsigned (UNSIGNED_FLAG). */
    public boolean unsigned() {
        return ColumnFlags.has(flags, ColumnFlags.UNSIGNED_FLAG);
    }

    /** Reads a payload positioned at its first byte; neither retains nor releases {@code in}. */
    public static ColumnDefinition41 read(ByteBuf in, Capabilities caps) {
        try {
            String catalog = LengthEncoded.readString(in, UTF_8);
            String schema = LengthEncoded.readString(in, UTF_8);
            String table = LengthEncoded.readString(in, UTF_8);
            String orgTable = LengthEncoded.readString(in, UTF_8);
            String name = LengthEncoded.readString(in, UTF_8);
            String orgName = LengthEncoded.readString(in, UTF_8);
            byte[] extended = caps.hasMariaDb(CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO)
                    ? LengthEncoded.readBytes(in)
                    : null;
            long fixed = LengthEncoded.readInt(in);
            if (fixed < FIXED_LENGTH || in.readableBytes() < fixed) {
                throw new MalformedPacketException("column definition fixed block of " + fixed + " bytes");
            }
            int characterSet = in.readUnsignedShortLE();
            long columnLength = in.readUnsignedIntLE();
            int typeCode = in.readUnsignedByte();
            MySqlType type = MySqlType.of(typeCode);
            if (type == null) {
                throw new MalformedPacketException("unknown column type 0x" + Integer.toHexString(typeCode));
            }
            int flags = in.readUnsignedShortLE();
            int decimals = in.readUnsignedByte();
            in.skipBytes((int) fixed - 10); // 2 filler bytes, or more in a longer block
            in.skipBytes(in.readableBytes()); // COM_FIELD_LIST default values
            return new ColumnDefinition41(
                    catalog,
                    schema,
                    table,
                    orgTable,
                    name,
                    orgName,
                    characterSet,
                    columnLength,
                    type,
                    flags,
                    decimals,
                    extended);
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("ColumnDefinition41", e);
        }
    }

    /** Writes the payload; extended type info only when {@code caps} negotiated it; neither retains nor releases. */
    public void write(ByteBuf out, Capabilities caps) {
        LengthEncoded.writeString(out, catalog, UTF_8);
        LengthEncoded.writeString(out, schema, UTF_8);
        LengthEncoded.writeString(out, table, UTF_8);
        LengthEncoded.writeString(out, orgTable, UTF_8);
        LengthEncoded.writeString(out, name, UTF_8);
        LengthEncoded.writeString(out, orgName, UTF_8);
        if (caps.hasMariaDb(CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO)) {
            LengthEncoded.writeBytes(out, mariaDbExtendedTypeInfo == null ? new byte[0] : mariaDbExtendedTypeInfo);
        }
        out.writeByte(FIXED_LENGTH);
        out.writeShortLE(characterSet);
        out.writeIntLE((int) columnLength);
        out.writeByte(type.code());
        out.writeShortLE(flags);
        out.writeByte(decimals);
        out.writeZero(2);
    }
}
