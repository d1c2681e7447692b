package io.shardgate.router.tls;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.concurrent.TimeUnit.SECONDS;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLSession;

/**
 * A Netty server on 127.0.0.1 that speaks TLS with a given server context and echoes what it reads,
 * so tests run real handshakes over real sockets.
 */
final class TlsEchoServer implements AutoCloseable {
    /** What one client saw: the echoed text, the negotiated protocol and the server's certificate. */
    record Exchange(String echoed, String protocol, Certificate peerCertificate) {}

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;

    TlsEchoServer(SslContext serverContext) throws InterruptedException {
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(serverContext.newHandler(ch.alloc()), new Echo());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0)
                .sync()
                .channel();
    }

    /**
     * Connects with {@code clientContext}, verifying the server as {@code peerHost}, sends {@code text}
     * and waits for it to come back.
     */
    Exchange exchange(SslContext clientContext, String peerHost, String text) throws Exception {
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        CompletableFuture<String> echoed = new CompletableFuture<>();
        Channel client = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        clientContext.newHandler(ch.alloc(), peerHost, port),
                                        new Collect(text.length(), echoed));
                    }
                })
                .connect(InetAddress.getLoopbackAddress(), port)
                .sync()
                .channel();
        try {
            SslHandler ssl = client.pipeline().get(SslHandler.class);
            ssl.handshakeFuture().get(30, SECONDS);
            ByteBuf out = client.alloc().buffer(text.length());
            out.writeCharSequence(text, US_ASCII);
            client.writeAndFlush(out).sync();
            String received = echoed.get(30, SECONDS);
            SSLSession session = ssl.engine().getSession();
            return new Exchange(received, session.getProtocol(), session.getPeerCertificates()[0]);
        } finally {
            client.close().sync();
        }
    }

    @Override
    public void close() {
        try {
            server.close().syncUninterruptibly();
        } finally {
            group.shutdownGracefully(0, 5, SECONDS).syncUninterruptibly();
        }
    }

    /** Passes every buffer back to the peer: the write takes ownership, so nothing is released here. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Decodes the echo as it arrives, in however many pieces; the superclass releases each buffer. */
    private static final class Collect extends SimpleChannelInboundHandler<ByteBuf> {
        private final StringBuilder received = new StringBuilder();
        private final int expected;
        private final CompletableFuture<String> done;

        Collect(int expected, CompletableFuture<String> done) {
            this.expected = expected;
            this.done = done;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            received.append(msg.toString(US_ASCII));
            if (received.length() >= expected) {
                done.complete(received.toString());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IllegalStateException("closed after " + received.length() + " bytes"));
        }
    }
}
