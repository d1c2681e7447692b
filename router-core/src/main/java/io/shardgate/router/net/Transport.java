package io.shardgate.router.net;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/** The socket transport: native epoll on Linux when its library loads, NIO otherwise. */
public record Transport(
        String name,
        IoHandlerFactory ioHandlerFactory,
        Class<? extends ServerSocketChannel> serverChannel,
        Class<? extends SocketChannel> clientChannel) {

    /** Epoll when available, unless {@code -Dshardgate.transport=nio} asks for NIO. */
    public static Transport best() {
        if (!"nio".equals(System.getProperty("shardgate.transport")) && Epoll.isAvailable()) {
            return new Transport(
                    "epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
    }

    /** A new event loop group of {@code threads} loops (0 = Netty's default, two per core). */
    public MultiThreadIoEventLoopGroup newGroup(int threads, String name) {
        return new MultiThreadIoEventLoopGroup(
                threads, new io.netty.util.concurrent.DefaultThreadFactory(name, true), ioHandlerFactory);
    }
}
