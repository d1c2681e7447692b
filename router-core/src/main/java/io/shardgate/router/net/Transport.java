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
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The socket transport: native io_uring or epoll on Linux when their libraries load, NIO otherwise. */
public record Transport(
        String name,
        IoHandlerFactory ioHandlerFactory,
        Class<? extends ServerSocketChannel> serverChannel,
        Class<? extends SocketChannel> clientChannel) {
    /** Overrides {@code server.transport}: tests and benchmarks force a transport with it. */
    public static final String PROPERTY = "shardgate.transport";

    private static final Logger log = LoggerFactory.getLogger(Transport.class);

    /**
     * The transport {@code -Dshardgate.transport}, else {@code configured} (server.transport), asks
     * for, when it loads; otherwise the next that does, logged with the reason (at WARN when the
     * transport was asked for by name, at INFO for {@code auto}).
     *
     * @throws IllegalArgumentException for a name not in {@link TransportChoice#NAMES}
     */
    public static Transport select(String configured) {
        String property = System.getProperty(PROPERTY);
        String requested = property == null || property.isBlank() ? configured : property;
        TransportChoice choice =
                TransportChoice.of(requested, cause(IoUring.unavailabilityCause()), cause(Epoll.unavailabilityCause()));
        boolean named =
                requested != null && !requested.isBlank() && !requested.trim().equals("auto");
        if (choice.fallback() != null && named) {
            log.warn("{}", choice.fallback()); // the transport asked for by name does not load
        } else if (choice.fallback() != null) {
            log.info("{}", choice.fallback()); // auto: e.g. a container whose seccomp profile forbids io_uring
        }
        log.info("socket transport: {}", choice.name());
        return switch (choice.name()) {
            case "io_uring" ->
                new Transport(
                        "io_uring",
                        IoUringIoHandler.newFactory(),
                        IoUringServerSocketChannel.class,
                        IoUringSocketChannel.class);
            case "epoll" ->
                new Transport(
                        "epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class);
            default ->
                new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
        };
    }

    private static String cause(Throwable unavailable) {
        if (unavailable == null) {
            return null;
        }
        return unavailable.getMessage() == null ? unavailable.getClass().getName() : unavailable.getMessage();
    }

    /** A new event loop group of {@code threads} loops (0 = Netty's default, two per core). */
    public MultiThreadIoEventLoopGroup newGroup(int threads, String name) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), ioHandlerFactory);
    }
}
