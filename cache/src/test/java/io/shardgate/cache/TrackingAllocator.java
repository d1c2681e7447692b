package io.shardgate.cache;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An unpooled allocator that remembers every buffer it made, so a test can assert that all of them
 * were released (PARANOID leak detection only reports what the GC happens to collect; the base
 * class still wraps each buffer for it).
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
    private final Queue<ByteBuf> allocated = new ConcurrentLinkedQueue<>();

    TrackingAllocator() {
        super(true);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(Unpooled.directBuffer(initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(Unpooled.buffer(initialCapacity, maxCapacity));
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    private ByteBuf track(ByteBuf b) {
        allocated.add(b);
        return b;
    }

    int allocations() {
        return allocated.size();
    }

    /** How many buffers are still referenced. */
    long live() {
        return allocated.stream().filter(b -> b.refCnt() > 0).count();
    }
}
