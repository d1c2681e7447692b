package io.shardgate.router.login;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.net.PacketWriter;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Enforces {@code server.max_connections}: a client beyond it gets ER_CON_COUNT_ERROR (1040) as
 * its first packet, as MySQL answers, and is closed before any handshake. Shared by all channels.
 */
@ChannelHandler.Sharable
public final class ConnectionLimitHandler extends ChannelInboundHandlerAdapter {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    public ConnectionLimitHandler(int max) {
        this.max = max;
    }

    /** Client connections currently open. */
    public int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > max) {
            ErrPacket error = ErrPacket.of(ErrorCode.ER_CON_COUNT_ERROR);
            ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), 0, 32, error::write))
                    .addListener(ChannelFutureListener.CLOSE);
            ctx.channel().config().setAutoRead(false);
            return; // no handshake for this one
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        ctx.fireChannelInactive();
    }
}
