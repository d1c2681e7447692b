package io.shardgate.router.execute;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;

/**
 * The OK packet of an INSERT whose keys the router generated, with its last insert id set to the
 * first generated key: MySQL reports the first AUTO_INCREMENT value of a statement there, and
 * drivers read it for {@code getGeneratedKeys()} (Connector/J derives the keys of further rows
 * by adding {@code auto_increment_increment}, 1; the generator hands a statement consecutive keys).
 * The shards' own OKs carry 0 or their column's value, neither of which is the statement's.
 */
final class GeneratedInsertOk {
    private GeneratedInsertOk() {}

    /**
     * {@code response} (framed, one packet) with its insert id replaced when it is an OK; an ERR is
     * returned as it is. Releases {@code response} when it returns a new buffer.
     */
    static ByteBuf withInsertIdAndRelease(ByteBufAllocator alloc, ByteBuf response, long insertId) {
        int start = response.readerIndex();
        int payload = start + Frame.HEADER_SIZE;
        if (response.readableBytes() <= Frame.HEADER_SIZE || response.getUnsignedByte(payload) != 0x00) {
            return response;
        }
        ByteBuf in = response.duplicate().readerIndex(payload + 1);
        long affected = LengthEncoded.readInt(in);
        LengthEncoded.readInt(in); // the shards' insert id
        int length = 1 + LengthEncoded.sizeOfInt(affected) + LengthEncoded.sizeOfInt(insertId) + in.readableBytes();
        ByteBuf out = alloc.buffer(Frame.HEADER_SIZE + length);
        try {
            out.writeMediumLE(length)
                    .writeByte(response.getUnsignedByte(start + 3))
                    .writeByte(0x00);
            LengthEncoded.writeInt(out, affected);
            LengthEncoded.writeInt(out, insertId);
            out.writeBytes(in, in.readerIndex(), in.readableBytes());
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        response.release();
        return out;
    }

    /** Whether a framed response is an OK packet (the INSERT succeeded). */
    static boolean isOk(ByteBuf response) {
        return response.readableBytes() > Frame.HEADER_SIZE
                && response.getUnsignedByte(response.readerIndex() + Frame.HEADER_SIZE) == 0x00;
    }
}
