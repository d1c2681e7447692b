package io.shardgate.router.backend;

import io.netty.channel.Channel;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.HandshakeV10;

/**
 * Test support: a {@link BackendConnection} on a channel the test provides, as {@link
 * BackendConnector} leaves it after a login (the login's frame decoder still in place), for tests
 * that script the server's side themselves (see {@code fakebackend.RecordingBackend}).
 */
public final class LoggedInConnections {
    private LoggedInConnections() {}

    /** {@code capabilities}: as negotiated; {@code statusFlags}: those of the login's OK. */
    public static BackendConnection on(
            Channel channel, long connectionId, Capabilities capabilities, int statusFlags, String label) {
        channel.pipeline().addLast(BackendConnection.FRAMES, new PacketFrameDecoder(1 << 24));
        HandshakeV10 greeting = new HandshakeV10(
                HandshakeV10.PROTOCOL_VERSION,
                "11.4.0-MariaDB-fake",
                connectionId,
                new byte[20],
                capabilities,
                45,
                statusFlags,
                "mysql_native_password");
        return new BackendConnection(channel, greeting, capabilities, statusFlags, label);
    }
}
