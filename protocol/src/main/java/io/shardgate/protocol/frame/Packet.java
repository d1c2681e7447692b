package io.shardgate.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * A logical MySQL packet (Protocol::Packet): one payload with the sequence id of its first frame
 * and, when the payload was split into 16 MiB frames, the sequence id of its last frame.
 *
 * <p>Holds one reference to its payload; whoever holds the packet last releases it.
 */
public final class Packet extends DefaultByteBufHolder {
    private final int sequenceId;
    private final int lastSequenceId;

    /** A packet sent in one frame (or to be framed by {@link PacketFrameEncoder}); takes ownership of {@code payload}. */
    public Packet(int sequenceId, ByteBuf payload) {
        this(sequenceId, sequenceId, payload);
    }

    /** A packet whose frames ran from {@code sequenceId} to {@code lastSequenceId}; takes ownership of {@code payload}. */
    public Packet(int sequenceId, int lastSequenceId, ByteBuf payload) {
        super(payload);
        this.sequenceId = sequenceId & 0xFF;
        this.lastSequenceId = lastSequenceId & 0xFF;
    }

    /** The sequence id of the first frame. */
    public int sequenceId() {
        return sequenceId;
    }

    /** The sequence id of the last frame; differs from {@link #sequenceId()} only for split payloads. */
    public int lastSequenceId() {
        return lastSequenceId;
    }

    /** The joined payload, same as {@link #content()}. */
    public ByteBuf payload() {
        return content();
    }

    @Override
    public Packet replace(ByteBuf content) {
        return new Packet(sequenceId, lastSequenceId, content);
    }

    @Override
    public Packet copy() {
        return (Packet) super.copy();
    }

    @Override
    public Packet duplicate() {
        return (Packet) super.duplicate();
    }

    @Override
    public Packet retainedDuplicate() {
        return (Packet) super.retainedDuplicate();
    }

    @Override
    public Packet retain() {
        super.retain();
        return this;
    }

    @Override
    public Packet retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public Packet touch() {
        super.touch();
        return this;
    }

    @Override
    public Packet touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return "Packet(seq=" + sequenceId
                + (lastSequenceId != sequenceId ? ".." + lastSequenceId : "")
                + ", length=" + content().readableBytes() + ")";
    }
}
