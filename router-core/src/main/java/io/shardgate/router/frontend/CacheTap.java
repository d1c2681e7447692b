package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.shardgate.cache.ResponseCollector;

/**
 * Copies the bytes a backend relays to the client into a result-cache fill. It sits at the tail of
 * the client pipeline, where the relay writes ({@code channel.write}), and sees nothing the
 * session writes itself (those start at the session's context, nearer the head). Idle (one field
 * check per write) unless a fill is armed; runs on the client's event loop.
 */
final class CacheTap extends ChannelOutboundHandlerAdapter {
    static final String NAME = "cache-tap";

    private ResponseCollector collector;

    /** Copies what is relayed from now on into {@code collector}; null stops copying. */
    void collect(ResponseCollector collector) {
        this.collector = collector;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (collector != null && msg instanceof ByteBuf bytes && !collector.add(bytes)) {
            collector = null; // past max_entry_bytes: the collector abandoned the fill
        }
        ctx.write(msg, promise);
    }
}
