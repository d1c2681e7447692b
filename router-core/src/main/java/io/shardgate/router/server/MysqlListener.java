package io.shardgate.router.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.frontend.FrontendHandshakeHandler;
import io.shardgate.router.frontend.FrontendServices;
import io.shardgate.router.login.ConnectionLimitHandler;
import io.shardgate.router.net.Transport;

/** The MySQL port: each accepted client gets the connection limit, the packet framer and a login. */
public final class MysqlListener {
    private MysqlListener() {}

    /** Binds the MySQL port ({@code settings.port()}, 0: any) and returns its channel. */
    public static Channel bind(
            Transport transport,
            EventLoopGroup acceptor,
            EventLoopGroup workers,
            ServerSettings settings,
            ConnectionLimitHandler limit,
            FrontendServices services) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, workers)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("limit", limit)
                                .addLast("frames", new PacketFrameDecoder(settings.maxAllowedPacket()))
                                .addLast("handshake", new FrontendHandshakeHandler(services));
                    }
                });
        return bootstrap
                .bind(settings.bind(), settings.port())
                .syncUninterruptibly()
                .channel();
    }
}
