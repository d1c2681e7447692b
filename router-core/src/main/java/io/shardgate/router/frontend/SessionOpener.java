package io.shardgate.router.frontend;

import io.netty.channel.ChannelHandler;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.router.config.UserConfig;

/**
 * What a client connection becomes once {@link FrontendHandshakeHandler} has authenticated it:
 * a routing {@code FrontendSession} on the MySQL port, an admin session on the admin port. The
 * handler returned replaces the handshake handler; it sends the final OK itself (sequence id
 * {@code okSequenceId}) and turns reading back on.
 */
@FunctionalInterface
public interface SessionOpener {
    ChannelHandler open(UserConfig user, Capabilities capabilities, String schema, int okSequenceId);
}
