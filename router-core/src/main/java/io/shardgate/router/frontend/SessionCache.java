package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.cache.CacheKey;
import io.shardgate.cache.CacheMode;
import io.shardgate.cache.CachePolicy;
import io.shardgate.cache.Cacheability;
import io.shardgate.cache.Lookup;
import io.shardgate.cache.ResponseCollector;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.resultcache.CacheShape;
import io.shardgate.router.resultcache.Invalidation;
import io.shardgate.router.resultcache.ResponseVariant;
import io.shardgate.router.resultcache.RouterResultCache;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.rule.QueryRuleMatch;
import io.shardgate.sharding.rule.RuleSnapshot;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One client session's use of the result cache. Before a statement is routed, {@link #intercept}
 * answers a cacheable read from the cache (a hit: the stored packets go to the client, nothing to
 * a backend), parks it behind another session's fill of the same key, or arms a fill that copies
 * the response as it goes to the client ({@link CacheTap} for a relayed response, {@link
 * #routedResponse} for a merged one). Every other statement is classified for invalidation: what
 * a write changes is dropped from the cache when its response ends — at once in autocommit mode,
 * at the end of the transaction otherwise (discarded at ROLLBACK).
 *
 * <p>Threading: the session's event loop only; a wait's completion (on the filler's loop) hops
 * back to it. Invariant: an armed fill is finished or abandoned when its command ends, errs or
 * the session closes, so sessions waiting on it never outlive it (and each waiter also gives up
 * after the cache's fill timeout).
 */
public final class SessionCache {
    /** Payload offset of COM_STMT_EXECUTE's flags (cursor type) and of its NULL bitmap. */
    private static final int EXECUTE_FLAGS = 5;

    private static final int EXECUTE_NULL_BITMAP = 10;

    private final SessionPort session;
    /** Null when the cache is off: every method is then a field check. */
    private final RouterResultCache cache;

    private CacheTap tap;
    /** The fill of the command in flight, or null. */
    private ResponseCollector filling;
    /** A merged answer streamed so far carried an ERR: it ends the command as an error. */
    private boolean routedError;
    /** What the command in flight changes, applied when its response ends. */
    private Invalidation pendingWrite = Invalidation.NONE;
    /** The command in flight is a ROLLBACK: an ending transaction's writes are discarded. */
    private boolean rollback;
    /** Writes of the open transaction, applied when it commits. */
    private Invalidation uncommitted = Invalidation.NONE;
    /** A read that waited for another fill in vain runs again without looking up. */
    private boolean bypassNext;

    private ResponseVariant variant;
    private SessionVariables variantOf;
    private ConnectionKind variantKind;

    public SessionCache(SessionPort session, RouterResultCache cache) {
        this.session = session;
        this.cache = cache != null && cache.results().enabled() ? cache : null;
    }

    /** Adds the tap to the client pipeline (at its tail) when the cache is on. */
    void install(ChannelPipeline pipeline) {
        if (cache != null) {
            tap = new CacheTap();
            pipeline.addLast(CacheTap.NAME, tap);
        }
    }

    /** Whether the result cache is on: without it {@link #query} never takes a command over. */
    public boolean enabled() {
        return cache != null;
    }

    /**
     * A COM_QUERY about to be routed. Returns true when the cache took the command over (a hit was
     * written, or it waits for a fill and will answer or call {@code rerun} later); false: route
     * it now (a fill may be armed to collect its response).
     */
    public boolean query(Packet packet, Digest digest, QueryRuleMatch match, RuleSnapshot rules, Runnable rerun) {
        return cache != null && intercept(packet, digest, match, rules, false, null, rerun);
    }

    /**
     * A COM_STMT_EXECUTE of a statement prepared as {@code digest}, its parameter types bound
     * ({@link ExecuteTypes}); as {@link #query}. Not cached: executions opening a cursor, with
     * parameters sent as long data ({@code longData}), or whose parameter types the router never saw.
     */
    public boolean execute(Packet packet, Digest digest, int parameters, boolean longData, Runnable rerun) {
        if (cache == null) {
            return false;
        }
        ByteBuf payload = packet.payload();
        int base = payload.readerIndex();
        byte[] bound = null;
        if (!longData && payload.readableBytes() >= EXECUTE_NULL_BITMAP && payload.getByte(base + EXECUTE_FLAGS) == 0) {
            int typesFlag = base + EXECUTE_NULL_BITMAP + (parameters + 7) / 8;
            if (parameters == 0 || (typesFlag < payload.writerIndex() && payload.getByte(typesFlag) == 1)) {
                // NULL bitmap, types and values, exactly as sent: the key of the bound values
                bound = new byte[payload.writerIndex() - base - EXECUTE_NULL_BITMAP];
                payload.getBytes(base + EXECUTE_NULL_BITMAP, bound);
            }
        }
        // bound == null: not cacheable, but a write must still be classified
        return intercept(packet, digest, null, session.services().routing().current(), true, bound, rerun);
    }

    private boolean intercept(
            Packet packet,
            Digest digest,
            QueryRuleMatch match,
            RuleSnapshot rules,
            boolean binary,
            byte[] bound,
            Runnable rerun) {
        if (bypassNext) {
            bypassNext = false;
            return false;
        }
        String schema = session.desired().schema();
        String text = digest.text();
        if (digest.multiStatement()) {
            pendingWrite = Invalidation.ALL; // what each statement changes is not followed
            return false;
        }
        CacheShape shape = cache.shape(schema, digest);
        Invalidation write = shape.write();
        if (!write.isNone()) {
            pendingWrite = write;
            return false;
        }
        if (!uncommitted.isNone()) {
            rollback = shape.rollback();
        }
        if (binary && bound == null) {
            return false;
        }
        String user = session.user().name();
        QueryRuleMatch rule = match != null ? match : rules.matchQueryRules(user, schema, text);
        CachePolicy policy = CachePolicy.of(rules, rule, schema, text);
        if (policy == null || packet.lastSequenceId() != 0) {
            return false; // no TTL; or a command of several packets, whose answer starts at another sequence id
        }
        CacheMode mode = Cacheability.decide(
                digest,
                shape.uncacheable(),
                autocommit(),
                inTransaction() || session.transaction().start() != null);
        if (mode == CacheMode.BYPASS) {
            return false;
        }
        CacheKey key = binary
                ? CacheKey.forExecute(schema, digest, List.of(bound), user, policy, variant())
                : CacheKey.forQuery(schema, digest, user, policy, variant());
        Lookup lookup = cache.lookup(rules.version(), key, policy, shape, mode);
        if (lookup instanceof Lookup.Hit hit) {
            packet.release();
            session.write(hit.response());
            return true;
        } else if (lookup instanceof Lookup.Fill fill) {
            filling = cache.results().collector(fill.ticket());
            tap.collect(filling);
            return false;
        } else if (lookup instanceof Lookup.Wait wait) {
            new Waiter(packet, rerun, wait.result().toCompletableFuture()).start();
            return true;
        }
        return false;
    }

    /** A read parked behind another session's fill of its key. */
    private final class Waiter {
        private final Packet packet;
        private final Runnable rerun;
        private final CompletableFuture<Lookup> result;
        private final EventLoop loop;
        private ScheduledFuture<?> timeout;
        private boolean aborted;

        Waiter(Packet packet, Runnable rerun, CompletableFuture<Lookup> result) {
            this.packet = packet;
            this.rerun = rerun;
            this.result = result;
            this.loop = session.client().eventLoop();
        }

        void start() {
            session.startRouted(this::abort);
            // a fill that never ends must not hold the session: run the read itself after the timeout
            timeout = loop.schedule(
                    () -> result.complete(new Lookup.Bypass()),
                    cache.results().fillTimeout().toMillis(),
                    TimeUnit.MILLISECONDS);
            result.whenComplete((lookup, error) -> {
                try {
                    loop.execute(() -> resume(lookup));
                } catch (RejectedExecutionException shutdown) {
                    release(lookup);
                }
            });
        }

        /** The session closed while waiting. */
        private void abort() {
            aborted = true;
            packet.release();
            result.complete(new Lookup.Bypass()); // a hit completing later is released by the cache
        }

        private void resume(Lookup lookup) {
            timeout.cancel(false);
            if (aborted) {
                release(lookup);
                return;
            }
            if (lookup instanceof Lookup.Hit hit) {
                packet.release();
                session.finishRouted(hit.response());
                return;
            }
            session.resumeRouted(() -> {
                bypassNext = true;
                try {
                    rerun.run();
                } finally {
                    bypassNext = false;
                }
            });
        }

        private void release(Lookup lookup) {
            if (lookup instanceof Lookup.Hit hit) {
                hit.response().release();
            }
        }
    }

    /**
     * A command the router answered itself ends with {@code response} (framed, about to be
     * written): a merged scatter read fills the cache with it. Neither retains nor releases it.
     */
    void routedResponse(ByteBuf response) {
        if (cache == null) {
            return;
        }
        boolean error = routedError || containsErr(response);
        routedError = false;
        if (filling != null && !error) {
            filling.add(response);
        }
        commandEnded(error);
    }

    /**
     * Frames of a merged answer streamed to the client before its end ({@link #routedResponse}
     * follows): collected into the fill unless one is an ERR. Neither retains nor releases them.
     */
    void routedPart(ByteBuf frames) {
        if (cache == null) {
            return;
        }
        routedError |= containsErr(frames);
        if (filling != null && !routedError) {
            filling.add(frames);
        }
    }

    /**
     * Whether one of the whole frames in {@code frames} is an ERR packet: in a result set no other
     * packet starts with 0xFF (not a valid length prefix of a text row; binary rows start with 0x00).
     */
    private static boolean containsErr(ByteBuf frames) {
        int at = frames.readerIndex();
        int end = frames.writerIndex();
        while (at + 4 < end) {
            int length = frames.getUnsignedMediumLE(at);
            if (length > 0 && frames.getUnsignedByte(at + 4) == 0xFF) {
                return true;
            }
            at += 4 + length;
        }
        return false;
    }

    /**
     * The command in flight ended ({@code error}: with an ERR): its fill completes or is
     * abandoned, and what it wrote is invalidated now or at the end of its transaction.
     */
    void commandEnded(boolean error) {
        if (cache == null) {
            return;
        }
        if (filling != null) {
            ResponseCollector fill = filling;
            filling = null;
            tap.collect(null);
            if (error) {
                fill.abandon();
            } else {
                fill.finish();
            }
        }
        Invalidation write = pendingWrite;
        pendingWrite = Invalidation.NONE;
        boolean open = inTransaction();
        if (!write.isNone()) {
            // even a failed write: a non-transactional table may have changed halfway
            if (open) {
                uncommitted = uncommitted.plus(write);
            } else {
                cache.invalidate(write);
            }
        }
        if (!open && !uncommitted.isNone()) {
            if (!rollback) {
                cache.invalidate(uncommitted);
            }
            uncommitted = Invalidation.NONE;
        }
        rollback = false;
    }

    /**
     * The session is gone: its fill is abandoned, and what it wrote is invalidated — a write or
     * COMMIT in flight may have reached the server even though no answer came back.
     */
    void sessionClosed() {
        if (cache == null) {
            return;
        }
        if (filling != null) {
            ResponseCollector fill = filling;
            filling = null;
            tap.collect(null);
            fill.abandon();
        }
        cache.invalidate(pendingWrite.plus(uncommitted));
        pendingWrite = Invalidation.NONE;
        uncommitted = Invalidation.NONE;
    }

    /** Whether a connection of the session has a transaction open (server status IN_TRANS). */
    private boolean inTransaction() {
        for (BackendLease lease : session.leases().all()) {
            if (lease.current() != null && (lease.statusFlags() & ServerStatus.SERVER_STATUS_IN_TRANS) != 0) {
                return true;
            }
        }
        return false;
    }

    private boolean autocommit() {
        if ((session.leases().statusFlags() & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0) {
            return false;
        }
        for (Map.Entry<String, String> e : session.desired().fragments().entrySet()) {
            if (e.getKey().equalsIgnoreCase("autocommit")) {
                String v = e.getValue().toLowerCase(Locale.ROOT).replace(" ", "");
                return !(v.endsWith("=0") || v.endsWith("=off") || v.endsWith("=false"));
            }
        }
        return true;
    }

    /** The session's response variant, rebuilt only when its variables or login kind changed. */
    private ResponseVariant variant() {
        SessionVariables desired = session.desired();
        ConnectionKind kind = session.leases().kind();
        if (variant == null || desired != variantOf || kind != variantKind) {
            variant = new ResponseVariant(
                    kind.capabilities(), kind.mariaDbCapabilities(), kind.characterSet(), desired.fragments());
            variantOf = desired;
            variantKind = kind;
        }
        return variant;
    }
}
