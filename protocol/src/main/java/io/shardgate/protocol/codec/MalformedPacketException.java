package io.shardgate.protocol.codec;

import io.netty.handler.codec.DecoderException;

/**
 * A payload that does not follow the layout its packet type requires (truncated, wrong header, bad
 * length prefix): the condition MySQL answers with ER_MALFORMED_PACKET (1835).
 */
public final class MalformedPacketException extends DecoderException {
    private static final long serialVersionUID = 1L;

    public MalformedPacketException(String message) {
        super(message);
    }

    public MalformedPacketException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The exception for a payload that ended before {@code what} was complete. */
    public static MalformedPacketException truncated(String what, IndexOutOfBoundsException cause) {
        return new MalformedPacketException("truncated " + what, cause);
    }
}
