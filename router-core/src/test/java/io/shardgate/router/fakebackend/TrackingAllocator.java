package io.shardgate.router.fakebackend;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * Hands out unpooled buffers and remembers each one, so a test can see every buffer released (the
 * leak detector only reports what the garbage collector happens to find).
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> allocated = new ArrayList<>();

    TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity));
    }

    private ByteBuf track(ByteBuf b) {
        allocated.add(b);
        return b;
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** Buffers allocated here and not released yet. */
    long unreleased() {
        return allocated.stream().filter(b -> b.refCnt() > 0).count();
    }
}
