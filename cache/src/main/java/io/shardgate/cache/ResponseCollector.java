package io.shardgate.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The response of one fill, copied frame by frame as the session relays it to the client, then
 * handed to the cache without a second copy. Once the response outgrows the per-entry limit the
 * collector releases what it holds and abandons the fill at once, so waiters go to the backend
 * instead of waiting for a result that cannot be stored.
 *
 * <p>Not thread-safe: it belongs to the filling session's event loop. Exactly one of {@link
 * #finish()} or {@link #abandon()} must be called (both are safe to call after the other).
 */
public final class ResponseCollector {
    /** First allocation; most cached answers are a few rows. */
    private static final int INITIAL = 512;

    private final ResultCache cache;
    private final FillTicket ticket;
    private final ByteBufAllocator alloc;
    private final int max;
    private ByteBuf bytes;
    private boolean ended;

    ResponseCollector(ResultCache cache, FillTicket ticket, ByteBufAllocator alloc, int max) {
        this.cache = cache;
        this.ticket = ticket;
        this.alloc = alloc;
        this.max = max;
    }

    /**
     * Copies the readable bytes of one framed packet exactly as it goes to the client (call it
     * before writing {@code frame}); neither retains nor releases {@code frame} nor moves its indices.
     *
     * @return false once the response is too large to cache (the fill is then abandoned)
     */
    public boolean add(ByteBuf frame) {
        if (ended) {
            return false;
        }
        int n = frame.readableBytes();
        int held = bytes == null ? 0 : bytes.readableBytes();
        if (held + n > max) {
            ended = true;
            if (bytes != null) {
                bytes.release();
                bytes = null;
            }
            cache.completeAndRelease(ticket, null); // counted as rejected; waiters go to the backend
            return false;
        }
        if (bytes == null) {
            bytes = alloc.directBuffer(Math.min(max, Math.max(INITIAL, n)), max);
        }
        bytes.writeBytes(frame, frame.readerIndex(), n);
        return true;
    }

    /**
     * Completes the fill with everything added: waiters get it, and it is stored unless an
     * invalidation overtook the fill.
     *
     * @return whether it was stored; false too after {@link #abandon()}
     */
    public boolean finish() {
        if (ended) {
            return false;
        }
        ended = true;
        ByteBuf owned = bytes != null ? bytes : alloc.directBuffer(0, 0);
        bytes = null;
        if (owned.capacity() - owned.readableBytes() > owned.readableBytes() / 4) {
            ByteBuf exact = alloc.directBuffer(owned.readableBytes(), owned.readableBytes());
            exact.writeBytes(owned); // a stored entry should not carry the slack of growth
            owned.release();
            owned = exact;
        }
        return cache.completeAndRelease(ticket, owned);
    }

    /** Releases what was collected and abandons the fill (backend error, client gone). */
    public void abandon() {
        if (ended) {
            return;
        }
        ended = true;
        if (bytes != null) {
            bytes.release();
            bytes = null;
        }
        cache.abandon(ticket);
    }
}
