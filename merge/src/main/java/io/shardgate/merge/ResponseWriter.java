package io.shardgate.merge;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.row.BinaryValue;
import io.shardgate.protocol.row.TextValue;
import java.util.List;

/**
 * Writes the merged response into one buffer as framed packets with sequence ids from 1: payloads
 * are written in place after a reserved frame header, which is patched once the length is known
 * (a payload of 16 MiB or more is split into frames afterwards).
 */
final class ResponseWriter {
    private ByteBuf out;
    private int sequenceId = 1;
    private int payloadStart = -1;

    /** Neither retains nor releases {@code out}. */
    ResponseWriter(ByteBuf out) {
        this.out = out;
    }

    /**
     * Continues the response in {@code next} (a streamed response goes out in several buffers;
     * sequence ids continue); neither retains nor releases it.
     */
    void into(ByteBuf next) {
        if (payloadStart >= 0) {
            throw new IllegalStateException("a packet is being written");
        }
        this.out = next;
    }

    /** Starts a packet; its payload is what is written to the returned buffer until {@link #end}. */
    ByteBuf begin() {
        out.writeZero(Frame.HEADER_SIZE);
        payloadStart = out.writerIndex();
        return out;
    }

    void end() {
        int length = out.writerIndex() - payloadStart;
        if (length < Frame.MAX_PAYLOAD) {
            out.setMediumLE(payloadStart - Frame.HEADER_SIZE, length);
            out.setByte(payloadStart - 1, sequenceId++);
        } else {
            byte[] payload = new byte[length];
            out.getBytes(payloadStart, payload);
            out.writerIndex(payloadStart - Frame.HEADER_SIZE);
            int at = 0;
            int chunk;
            do {
                chunk = Math.min(Frame.MAX_PAYLOAD, length - at);
                Frame.writeHeader(out, chunk, sequenceId++ & 0xFF);
                out.writeBytes(payload, at, chunk);
                at += chunk;
            } while (chunk == Frame.MAX_PAYLOAD);
        }
        payloadStart = -1;
    }

    /** Drops a packet begun but not ended (its row could not be written). */
    void abandon() {
        if (payloadStart >= 0) {
            out.writerIndex(payloadStart - Frame.HEADER_SIZE);
            payloadStart = -1;
        }
    }

    /** A packet whose payload is {@code payload}'s readable bytes. */
    void copy(ByteBuf payload) {
        begin().writeBytes(payload, payload.readerIndex(), payload.readableBytes());
        end();
    }

    void columnCount(int count) {
        LengthEncoded.writeInt(begin(), count);
        end();
    }

    /**
     * A column definition: the shard's, with the fixed block written from {@code column}'s fields
     * and, when {@code name} is not null, that name instead of the shard's.
     */
    void columnDefinition(ResultColumn column, String name) {
        ByteBuf def = column.payload();
        ByteBuf in = def.duplicate();
        for (int i = 0; i < 4; i++) {
            LengthEncoded.skip(in); // catalog, schema, table, org_table
        }
        int nameStart = in.readerIndex();
        LengthEncoded.skip(in);
        int nameEnd = in.readerIndex();
        int fixedStart = def.writerIndex() - ResultColumn.FIXED_BLOCK;
        ByteBuf p = begin();
        p.writeBytes(def, def.readerIndex(), nameStart - def.readerIndex());
        if (name == null) {
            p.writeBytes(def, nameStart, nameEnd - nameStart);
        } else {
            LengthEncoded.writeString(p, name, UTF_8);
        }
        p.writeBytes(def, nameEnd, fixedStart - nameEnd);
        p.writeByte(ResultColumn.FIXED_LENGTH);
        p.writeShortLE(column.characterSet());
        p.writeIntLE((int) column.length());
        p.writeByte(column.type().code());
        p.writeShortLE(column.flags());
        p.writeByte(column.decimals());
        p.writeZero(2);
        end();
    }

    void eof(int warnings, int statusFlags) {
        new EofPacket(warnings, statusFlags).write(begin());
        end();
    }

    /** The end of a result set: EOF, or with CLIENT_DEPRECATE_EOF an OK packet with header 0xFE. */
    void terminator(boolean deprecateEof, int warnings, int statusFlags) {
        if (!deprecateEof) {
            eof(warnings, statusFlags);
            return;
        }
        ByteBuf p = begin();
        p.writeByte(OkPacket.EOF_HEADER);
        LengthEncoded.writeInt(p, 0);
        LengthEncoded.writeInt(p, 0);
        p.writeShortLE(statusFlags);
        p.writeShortLE(warnings);
        end();
    }

    /** A text row of the first {@code columns.size()} cells of {@code row}. */
    void textRow(MergedRow row, List<ResultColumn> columns) {
        ByteBuf p = begin();
        for (int i = 0; i < columns.size(); i++) {
            if (row.isNull(i)) {
                LengthEncoded.writeNull(p);
            } else if (row.computed(i)) {
                ResultColumn c = columns.get(i);
                LengthEncoded.writeBytes(p, TextValue.format(row.value(i), c.type(), c.decimals()));
            } else {
                row.copyCell(p, i);
            }
        }
        end();
    }

    /** A binary row of the first {@code columns.size()} cells of {@code row}. */
    void binaryRow(MergedRow row, List<ResultColumn> columns) {
        int n = columns.size();
        ByteBuf p = begin();
        p.writeByte(0x00);
        int bitmap = p.writerIndex();
        p.writeZero((n + 7 + 2) / 8);
        for (int i = 0; i < n; i++) {
            if (row.isNull(i)) {
                int bit = i + 2; // the NULL bitmap of a binary row starts at bit offset 2
                p.setByte(bitmap + (bit >>> 3), p.getByte(bitmap + (bit >>> 3)) | (1 << (bit & 7)));
            } else if (row.computed(i)) {
                BinaryValue.write(p, row.value(i), columns.get(i).type());
            } else {
                row.copyCell(p, i);
            }
        }
        end();
    }
}
