package io.shardgate.protocol.packet;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ServerStatus;

/**
 * OK_Packet (server to client): header 0x00, or 0xFE when it ends a result set under
 * CLIENT_DEPRECATE_EOF; affected rows and last insert id (lenenc), status flags and warnings
 * (CLIENT_PROTOCOL_41), then the info text (length-encoded, as servers send it) and, with CLIENT_SESSION_TRACK and
 * SERVER_SESSION_STATE_CHANGED, the session state changes.
 *
 * @param affectedRows unsigned
 * @param lastInsertId unsigned
 * @param info human-readable status, "" when none
 * @param sessionStateChanges the raw session state info (without its length prefix), or null
 */
public record OkPacket(
        int header,
        long affectedRows,
        long lastInsertId,
        int statusFlags,
        int warnings,
        String info,
        byte[] sessionStateChanges) {
    public static final int HEADER = 0x00;
    /** Header of an OK_Packet that replaces EOF_Packet at the end of a result set. */
    public static final int EOF_HEADER = 0xFE;

    /** A plain OK with header 0x00 and no info. */
    public static OkPacket of(long affectedRows, long lastInsertId, int statusFlags, int warnings) {
        return new OkPacket(HEADER, affectedRows, lastInsertId, statusFlags, warnings, "", null);
    }

    /** Whether a payload is an OK_Packet with header 0x00 (not a result set's 0xFE terminator). */
    public static boolean isOk(ByteBuf payload) {
        return payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == HEADER;
    }

    /** Reads a payload positioned at the header; neither retains nor releases {@code in}. */
    public static OkPacket read(ByteBuf in, Capabilities caps) {
        try {
            int header = in.readUnsignedByte();
            if (header != HEADER && header != EOF_HEADER) {
                throw new MalformedPacketException("not an OK_Packet: 0x" + Integer.toHexString(header));
            }
            long affectedRows = LengthEncoded.readInt(in);
            long lastInsertId = LengthEncoded.readInt(in);
            int status = 0;
            int warnings = 0;
            if (caps.has(CapabilityFlags.CLIENT_PROTOCOL_41)) {
                status = in.readUnsignedShortLE();
                warnings = in.readUnsignedShortLE();
            } else if (caps.has(CapabilityFlags.CLIENT_TRANSACTIONS)) {
                status = in.readUnsignedShortLE();
            }
            String info = "";
            byte[] changes = null;
            if (caps.has(CapabilityFlags.CLIENT_SESSION_TRACK)) {
                // servers omit the info entirely when it is empty and nothing changed
                if (in.isReadable()) {
                    info = nonNull(LengthEncoded.readString(in, UTF_8));
                }
                if ((status & ServerStatus.SERVER_SESSION_STATE_CHANGED) != 0 && in.isReadable()) {
                    changes = LengthEncoded.readBytes(in);
                }
            } else if (in.isReadable()) {
                // documented as string<EOF>, but MySQL and MariaDB both send it length-encoded
                info = nonNull(LengthEncoded.readString(in, UTF_8));
            }
            return new OkPacket(header, affectedRows, lastInsertId, status, warnings, info, changes);
        } catch (IndexOutOfBoundsException e) {
            throw MalformedPacketException.truncated("OK_Packet", e);
        }
    }

    /** Writes the payload as negotiated by {@code caps}; neither retains nor releases {@code out}. */
    public void write(ByteBuf out, Capabilities caps) {
        out.writeByte(header);
        LengthEncoded.writeInt(out, affectedRows);
        LengthEncoded.writeInt(out, lastInsertId);
        if (caps.has(CapabilityFlags.CLIENT_PROTOCOL_41)) {
            out.writeShortLE(statusFlags);
            out.writeShortLE(warnings);
        } else if (caps.has(CapabilityFlags.CLIENT_TRANSACTIONS)) {
            out.writeShortLE(statusFlags);
        }
        boolean stateChanged =
                (statusFlags & ServerStatus.SERVER_SESSION_STATE_CHANGED) != 0 && sessionStateChanges != null;
        if (caps.has(CapabilityFlags.CLIENT_SESSION_TRACK)) {
            if (!info.isEmpty() || stateChanged) {
                LengthEncoded.writeString(out, info, UTF_8);
            }
            if (stateChanged) {
                LengthEncoded.writeBytes(out, sessionStateChanges);
            }
        } else if (!info.isEmpty()) {
            LengthEncoded.writeString(out, info, UTF_8);
        }
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}
