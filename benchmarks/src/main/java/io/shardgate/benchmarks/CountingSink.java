package io.shardgate.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;

/**
 * The end of a benchmark's pipeline: counts the messages and bytes that reach it, inbound or
 * outbound, and releases them (it is their last holder), so the codec under test does all the
 * work and nothing queues up between invocations.
 */
final class CountingSink extends ChannelDuplexHandler {
    long messages;
    long bytes;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        consume(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        consume(msg);
        promise.trySuccess();
    }

    private void consume(Object msg) {
        messages++;
        if (msg instanceof ByteBuf buf) {
            bytes += buf.readableBytes();
        } else if (msg instanceof ByteBufHolder holder) {
            bytes += holder.content().readableBytes();
        }
        ReferenceCountUtil.release(msg);
    }
}
