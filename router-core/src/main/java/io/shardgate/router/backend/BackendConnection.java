package io.shardgate.router.backend;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.HandshakeV10;

/**
 * An authenticated connection to one backend server. Until {@link #attach} it still carries
 * the frame decoder used during login; attaching swaps it for a relay so responses travel as
 * raw bytes.
 */
public final class BackendConnection {
    static final String FRAMES = "frames";
    static final String RELAY = "relay";

    private final Channel channel;
    private final HandshakeV10 handshake;
    private final Capabilities capabilities;
    private final int initialStatusFlags;
    private final String label;

    BackendConnection(
            Channel channel, HandshakeV10 handshake, Capabilities capabilities, int statusFlags, String label) {
        this.channel = channel;
        this.handshake = handshake;
        this.capabilities = capabilities;
        this.initialStatusFlags = statusFlags;
        this.label = label;
    }

    /** Installs the relay that forwards this connection's responses; call once, on its loop. */
    public void attach(BackendRelayHandler relay) {
        relay.scanner().statusFlags(initialStatusFlags);
        channel.pipeline().addLast(RELAY, relay);
        // leftover bytes in the decoder's cumulation are handed to the relay as a raw ByteBuf
        channel.pipeline().remove(FRAMES);
    }

    public Channel channel() {
        return channel;
    }

    /** The server's greeting: version string, connection id, capabilities. */
    public HandshakeV10 handshake() {
        return handshake;
    }

    /** Capability flags negotiated with the server. */
    public Capabilities capabilities() {
        return capabilities;
    }

    /** {@code host:port} for logs and errors. */
    public String label() {
        return label;
    }

    public ChannelFuture close() {
        return channel.close();
    }

    @Override
    public String toString() {
        return "BackendConnection[" + label + ", id=" + handshake.connectionId() + "]";
    }
}
