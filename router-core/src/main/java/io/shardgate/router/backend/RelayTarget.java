package io.shardgate.router.backend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/** The client side of a relay: where a backend's responses go and who hears when they end. */
public interface RelayTarget {
    /** The client channel relayed bytes are written to. */
    Channel client();

    /** {@code count} responses ended (all bytes before this call were written to the client). */
    void responsesComplete(int count, int statusFlags, boolean lastWasError);

    /** An internal command's response ended; {@code response} holds its framed packets. */
    void internalResponse(ByteBuf response, boolean error);

    /**
     * Bytes of a streamed internal response ({@code expectInternalStream}), framed as the server sent
     * them; ownership passes to the target.
     */
    default void internalChunk(ByteBuf chunk) {
        chunk.release();
    }

    /** The server asked for a LOCAL INFILE upload: forward the client's packets until an empty one. */
    void localInfileRequested();

    /**
     * A COM_STMT_PREPARE_OK is about to be relayed: {@code in} holds it whole, payload at
     * {@code payload}; the target may rewrite the statement id in place (statement ids are the
     * router's, not one backend connection's).
     */
    default void prepareOk(ByteBuf in, int payload) {}

    /**
     * The backend closed or failed. {@code midPacket} is true when part of a packet was already
     * relayed, so no error packet can be inserted; {@code nextSequenceId} otherwise continues the
     * client's sequence.
     */
    void backendLost(String reason, boolean midPacket, int nextSequenceId);

    /**
     * The backend sent nothing for the query timeout while a response was outstanding; the relay
     * has closed it. Arguments as for {@link #backendLost}; by default handled like a loss.
     */
    default void queryTimedOut(String reason, boolean midPacket, int nextSequenceId) {
        backendLost(reason, midPacket, nextSequenceId);
    }
}
