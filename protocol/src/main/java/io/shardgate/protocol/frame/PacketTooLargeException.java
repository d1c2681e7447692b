package io.shardgate.protocol.frame;

import io.netty.handler.codec.DecoderException;

/**
 * A packet longer than max_allowed_packet arrived (the condition MySQL answers with
 * ER_NET_PACKET_TOO_LARGE, 1153); its bytes were discarded and the next packet decodes normally.
 */
public final class PacketTooLargeException extends DecoderException {
    private static final long serialVersionUID = 1L;

    private final long length;
    private final int maxAllowedPacket;

    public PacketTooLargeException(long length, int maxAllowedPacket) {
        super("packet of at least " + length + " bytes exceeds max_allowed_packet " + maxAllowedPacket);
        this.length = length;
        this.maxAllowedPacket = maxAllowedPacket;
    }

    /**
     * The payload length known when the limit was crossed: exact for a single-frame packet, a lower
     * bound for a split one (the remaining frames are discarded unread).
     */
    public long length() {
        return length;
    }

    /** The limit that was exceeded. */
    public int maxAllowedPacket() {
        return maxAllowedPacket;
    }
}
