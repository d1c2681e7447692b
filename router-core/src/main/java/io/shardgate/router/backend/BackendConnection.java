package io.shardgate.router.backend;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.HandshakeV10;

/**
 * An authenticated connection to one backend server. Until {@link #attach} it still carries
 * the frame decoder used during login; attaching swaps it for a relay so responses travel as
 * raw bytes.
 */
public final class BackendConnection {
    static final String FRAMES = "frames";
    /** The TLS handler, first in the pipeline of a connection whose login was upgraded to TLS. */
    public static final String TLS = "tls";

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

    /**
     * Adds {@code handler} nearest the socket among the handlers that see plaintext: right behind
     * the TLS handler of an encrypted connection, first otherwise.
     */
    public void addNearestSocket(String name, ChannelHandler handler) {
        if (channel.pipeline().get(TLS) != null) {
            channel.pipeline().addAfter(TLS, name, handler);
        } else {
            channel.pipeline().addFirst(name, handler);
        }
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
