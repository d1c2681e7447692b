package io.shardgate.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The result cache: complete responses to cacheable reads, kept as ready-to-send MySQL packets so a
 * hit is one buffer write, with no backend round trip and no decoding.
 *
 * <p><b>Use.</b> For a read that {@link Cacheability} allows and a {@link CachePolicy} gives a TTL,
 * the session calls {@link #lookup} before routing and acts on the {@link Lookup}: write a {@link
 * Lookup.Hit}; run a {@link Lookup.Fill} on the backend, copy what it relays to the client and
 * {@link #complete} (or {@link #abandon}) its ticket; continue a {@link Lookup.Wait} when its
 * stage completes; run a {@link Lookup.Bypass} without storing. Writes through the router call
 * {@link #invalidateTables} after the backend acknowledged them (at COMMIT for a transaction,
 * before the OK goes to the client); the admin purges with {@code invalidate*}.
 *
 * <p><b>Why these parts.</b> Caffeine bounds the bytes (a weigher), expires per entry (a
 * {@link TtlExpiry} reading the rule's TTL) and evicts well under concurrency. Around it the cache keeps what
 * Caffeine cannot know: a single-flight map of fills in progress, so concurrent misses of a key
 * run one backend query; an {@link InvalidationClock}, so a fill that began before an invalidation
 * of one of its tables is never stored or served; and a {@link TableIndex}, so a write drops the
 * results of its tables without a scan.
 *
 * <p><b>Threading.</b> Every method is thread-safe and non-blocking; they run on the callers'
 * event loops. Caffeine's maintenance and removal notifications run on the calling thread ({@code
 * executor(Runnable::run)}): they release buffers and update counters, which is cheap. A {@link
 * Lookup.Wait} stage completes on the thread that completes the fill.
 *
 * <p><b>Invariants.</b> (1) Each stored response has one reference owned by the cache, released
 * exactly once by the removal listener (or at once when the store is refused); a hit retains before
 * it hands out, and a hit racing the release sees a miss, never a freed buffer. (2) A result is
 * served only if no invalidation of its schema, rule or tables took a tick after its fill began
 * (checked at store, at hit and when joining a fill), so nothing read before an invalidation that
 * happened-before a lookup is returned by it. (3) A later fill replaces an earlier one, never the
 * reverse. (4) The table index holds exactly the present entries.
 */
public final class ResultCache implements AutoCloseable {
    /** Swapped whole by {@link #reconfigure}; every use reads it once. */
    private volatile CacheConfig config;

    private final Ticker ticker;
    private final ByteBufAllocator alloc;
    private final Cache<CacheKey, CacheEntry> cache;
    private final ConcurrentMap<CacheKey, CacheEntry> map;
    private final ConcurrentHashMap<CacheKey, FillTicket> flights = new ConcurrentHashMap<>();
    private final InvalidationClock clock = new InvalidationClock();
    private final TableIndex index = new TableIndex();
    private final AtomicLong fills = new AtomicLong();
    private final CacheMeters meters;
    private volatile boolean closed;

    /** A cache on the system clock, holding responses in unpooled direct memory. */
    public ResultCache(CacheConfig config, MeterRegistry registry) {
        this(config, registry, Ticker.systemTicker(), UnpooledByteBufAllocator.DEFAULT, Scheduler.systemScheduler());
    }

    /**
     * @param ticker the clock of TTLs and the fill timeout (tests advance a fake one)
     * @param alloc where stored responses are copied to; long-lived, so unpooled memory suits them
     *     better than a pool's chunks
     * @param scheduler prompts removal of expired entries when the cache is idle ({@link
     *     Scheduler#disabledScheduler()} leaves it to later activity)
     */
    public ResultCache(
            CacheConfig config, MeterRegistry registry, Ticker ticker, ByteBufAllocator alloc, Scheduler scheduler) {
        this.config = config;
        this.ticker = ticker;
        this.alloc = alloc;
        this.meters = new CacheMeters(registry);
        this.cache = Caffeine.newBuilder()
                .maximumWeight(config.maxBytes())
                .weigher((CacheKey k, CacheEntry e) -> e.weight)
                .expireAfter(new TtlExpiry())
                .ticker(ticker)
                .scheduler(scheduler)
                .executor(Runnable::run)
                .removalListener(this::removed)
                .build();
        this.map = cache.asMap();
    }

    /** Whether the {@code cache:} section enabled the cache; when not, every lookup bypasses. */
    public boolean enabled() {
        return config.enabled();
    }

    /** Responses larger than this are not stored: a filler may stop collecting and abandon. */
    public int maxEntryBytes() {
        return config.maxEntryBytes();
    }

    /** How long lookups join a fill in progress; a waiter may give up after it and run the read itself. */
    public Duration fillTimeout() {
        return config.fillTimeout();
    }

    /**
     * Looks a cacheable read up; never blocks.
     *
     * @param key the statement's key ({@link CacheKey#forQuery}, {@link CacheKey#forExecute})
     * @param policy from the matching query rules; {@code null} (no TTL) bypasses
     * @param tables every logical table the statement reads, for invalidation; when the caller
     *     cannot name them, an empty set records the read under the session schema's {@link
     *     QualifiedTable#anyIn}, so any write to that schema invalidates it (writes to other schemas
     *     are then seen after the TTL)
     * @param mode from {@link Cacheability#decide}: {@code BYPASS} bypasses, {@code REFRESH} drops
     *     the stored result and always fills
     */
    public Lookup lookup(CacheKey key, CachePolicy policy, Set<QualifiedTable> tables, CacheMode mode) {
        return lookup(key, policy, () -> tables, mode);
    }

    /**
     * {@link #lookup(CacheKey, CachePolicy, Set, CacheMode)} with the tables asked for only when
     * this lookup fills: a hit does not need them.
     */
    public Lookup lookup(CacheKey key, CachePolicy policy, Supplier<Set<QualifiedTable>> tables, CacheMode mode) {
        if (!config.enabled() || closed || policy == null || mode == CacheMode.BYPASS) {
            return Lookup.Bypass.INSTANCE;
        }
        boolean refresh = mode == CacheMode.REFRESH;
        if (refresh) {
            map.remove(key); // the removal listener counts it
        }
        while (true) {
            FillTicket flight = null;
            if (!refresh) {
                Lookup.Hit hit = hit(key);
                if (hit != null) {
                    meters.count(policy.rule(), c -> c.hits);
                    return hit;
                }
                flight = flights.get(key);
                if (flight != null && joinable(flight)) {
                    CompletableFuture<Lookup> waiter = flight.join();
                    if (waiter != null) {
                        meters.count(policy.rule(), c -> c.waits);
                        return new Lookup.Wait(waiter);
                    }
                    // the fill ended without a result to share: lead a new one in its place
                }
            }
            FillTicket mine = new FillTicket(
                    key, policy, readSet(key, tables.get()), clock.now(), fills.incrementAndGet(), ticker.read());
            boolean leads;
            if (refresh) {
                flights.put(key, mine); // later lookups wait for the refresh, not an older fill
                leads = true;
            } else {
                leads = flight == null ? flights.putIfAbsent(key, mine) == null : flights.replace(key, flight, mine);
            }
            if (leads) {
                meters.count(policy.rule(), c -> c.misses);
                return new Lookup.Fill(mine);
            }
        }
    }

    /**
     * Ends a fill with the complete response its caller relayed to the client (framed packets,
     * sequence ids from 1). Hands the result to the waiters and stores a copy unless it is larger
     * than {@link #maxEntryBytes()} or one of its tables, its schema or rule was invalidated since
     * the lookup. Neither retains nor releases {@code response}.
     *
     * @return whether the result was stored
     * @throws IllegalStateException when the ticket was already completed or abandoned
     */
    public boolean complete(FillTicket ticket, ByteBuf response) {
        int size = response.readableBytes();
        if (size > config.maxEntryBytes()) {
            return completeAndRelease(ticket, null);
        }
        ByteBuf copy = alloc.directBuffer(size, size);
        try {
            copy.writeBytes(response, response.readerIndex(), size);
        } catch (RuntimeException e) {
            copy.release();
            abandon(ticket);
            throw e;
        }
        return completeAndRelease(ticket, copy);
    }

    /**
     * A collector for the response of {@code ticket}'s fill, copying the frames as they are relayed
     * and completing (or abandoning) the ticket; see {@link ResponseCollector}.
     */
    public ResponseCollector collector(FillTicket ticket) {
        return new ResponseCollector(this, ticket, alloc, config.maxEntryBytes());
    }

    /**
     * {@link #complete} with a response the cache may keep as it is ({@code null}: too large);
     * takes over the reference of {@code owned}.
     */
    boolean completeAndRelease(FillTicket ticket, ByteBuf owned) {
        CacheEntry entry = owned == null
                ? null
                : new CacheEntry(
                        ticket.key, ticket.policy, ticket.tables, ticket.since, ticket.fill, owned.asReadOnly());
        List<CompletableFuture<Lookup>> waiters = ticket.finish(entry);
        if (waiters == null) {
            if (owned != null) {
                owned.release();
            }
            throw new IllegalStateException(ticket + " already completed or abandoned");
        }
        if (entry == null) {
            flights.remove(ticket.key, ticket);
            meters.count(ticket.policy.rule(), c -> c.rejected);
            bypass(waiters);
            return false;
        }
        for (CompletableFuture<Lookup> waiter : waiters) {
            // they looked up while this fill was current: its result answers them even if stale now
            ByteBuf mine = entry.retainedDuplicate();
            if (!waiter.complete(new Lookup.Hit(mine))) {
                mine.release(); // the waiter cancelled its stage
            }
        }
        boolean stored = store(entry);
        // only now: a lookup between the store and here finds the result stored, one before the
        // store joins the finished fill and gets its result, so no lookup misses in between
        flights.remove(ticket.key, ticket);
        return stored;
    }

    /**
     * Ends a fill without a result (backend error, client gone, response too large): waiters get
     * {@link Lookup.Bypass} and the next lookup fills. Idempotent, and a no-op after {@link
     * #complete}, so it may sit on every failure path.
     */
    public void abandon(FillTicket ticket) {
        List<CompletableFuture<Lookup>> waiters = ticket.finish(null);
        if (waiters != null) {
            flights.remove(ticket.key, ticket);
            bypass(waiters);
        }
    }

    /**
     * Drops the results that read {@code table}, and those whose tables were not named (see {@link
     * #lookup}) in its schema; returns how many were held.
     */
    public int invalidateTable(QualifiedTable table) {
        clock.table(table);
        int n = drop(index.take(table));
        return table.isAny() ? n : n + drop(index.take(QualifiedTable.anyIn(table.schema())));
    }

    /** {@link #invalidateTable} for each table a write (or a committed transaction) changed. */
    public int invalidateTables(Collection<QualifiedTable> tables) {
        int n = 0;
        for (QualifiedTable t : tables) {
            n += invalidateTable(t);
        }
        return n;
    }

    /** Drops the results looked up in, or reading a table of, {@code schema}. Scans: admin use. */
    public int invalidateSchema(String schema) {
        clock.schema(schema);
        String s = QualifiedTable.fold(schema);
        return dropIf(e ->
                (e.key.schema() != null && QualifiedTable.fold(e.key.schema()).equals(s))
                        || e.tables.stream().anyMatch(t -> t.schema().equals(s)));
    }

    /** Drops the results cached under query rule {@code rule}. Scans: admin use. */
    public int invalidateRule(int rule) {
        clock.rule(rule);
        return dropIf(e -> e.policy.rule() == rule);
    }

    /**
     * Applies a new {@code cache:} section at run time: the bound on bytes is changed in place
     * (Caffeine evicts down to a smaller one; what fits stays), the entry bound and fill timeout
     * apply to the next fills, and a cache switched off drops everything it holds. Fills running
     * meanwhile complete under the settings they started with.
     */
    public synchronized void reconfigure(CacheConfig next) {
        CacheConfig previous = config;
        if (next.equals(previous)) {
            return;
        }
        config = next;
        if (next.maxBytes() != previous.maxBytes()) {
            cache.policy().eviction().ifPresent(e -> e.setMaximum(next.maxBytes()));
        }
        if (!next.enabled()) {
            invalidateAll();
        }
    }

    /** The settings in force. */
    public CacheConfig config() {
        return config;
    }

    /** Drops every result, e.g. when a new rule version is published. */
    public int invalidateAll() {
        clock.all();
        return dropIf(e -> true);
    }

    /** Totals since start; entries and bytes are current. */
    public CacheStats stats() {
        return meters.total.snapshot();
    }

    /** Per query rule index, for the rules that have cached anything. */
    public Map<Integer, CacheStats> statsByRule() {
        return meters.byRule();
    }

    /** Drops everything and stores nothing more; fills still running complete without storing. */
    @Override
    public void close() {
        closed = true;
        invalidateAll();
        cache.cleanUp();
    }

    /** Runs Caffeine's pending maintenance (expiry, eviction) now. */
    void cleanUp() {
        cache.cleanUp();
    }

    /** How many tables the index holds (tests: it must not outlive the entries). */
    int indexedTables() {
        return index.tables();
    }

    /** How many fills are in progress (tests: none may be left behind). */
    int fillsInProgress() {
        return flights.size();
    }

    private Lookup.Hit hit(CacheKey key) {
        CacheEntry e = cache.getIfPresent(key);
        if (e == null) {
            return null;
        }
        if (!clock.current(e.since, key.schema(), e.policy.rule(), e.tables)) {
            drop(e); // an invalidation is removing it right now
            return null;
        }
        ByteBuf response = e.retainedDuplicate();
        return response == null ? null : new Lookup.Hit(response);
    }

    private static Set<QualifiedTable> readSet(CacheKey key, Set<QualifiedTable> tables) {
        if (tables.isEmpty() && key.schema() != null) {
            return Set.of(QualifiedTable.anyIn(key.schema())); // unknown: any write to the schema invalidates
        }
        return Set.copyOf(tables);
    }

    private boolean joinable(FillTicket flight) {
        return clock.current(flight.since, flight.key.schema(), flight.policy.rule(), flight.tables)
                && ticker.read() - flight.startedNanos < config.fillTimeout().toNanos();
    }

    private boolean store(CacheEntry entry) {
        int rule = entry.policy.rule();
        if (closed || !current(entry)) {
            meters.count(rule, c -> c.rejected);
            entry.release();
            return false;
        }
        while (true) {
            CacheEntry old = map.putIfAbsent(entry.key, entry);
            if (old == null) {
                break;
            }
            if (old.fill > entry.fill) { // a later fill, e.g. a refresh, already stored
                meters.count(rule, c -> c.rejected);
                entry.release();
                return false;
            }
            if (map.replace(entry.key, old, entry)) {
                break;
            }
        }
        meters.count(rule, c -> c.stores);
        meters.held(rule, 1, entry.size());
        index.add(entry);
        if (entry.removed) {
            index.remove(entry); // removed before it was indexed: the listener found nothing to unindex
        }
        if (!current(entry) || closed) {
            // an invalidation ticked (or close ran) between the check and the index: it may have missed us
            drop(entry);
        }
        return true;
    }

    private boolean current(CacheEntry e) {
        return clock.current(e.since, e.key.schema(), e.policy.rule(), e.tables);
    }

    private int drop(CacheEntry e) {
        return map.remove(e.key, e) ? 1 : 0;
    }

    private int drop(List<CacheEntry> entries) {
        int n = 0;
        for (CacheEntry e : entries) {
            n += drop(e);
        }
        return n;
    }

    private int dropIf(Predicate<CacheEntry> which) {
        int n = 0;
        for (CacheEntry e : index.entries()) { // not map.values(): it hides expired, still-held entries
            if (which.test(e)) {
                n += drop(e);
            }
        }
        return n;
    }

    private static void bypass(List<CompletableFuture<Lookup>> waiters) {
        for (CompletableFuture<Lookup> waiter : waiters) {
            waiter.complete(Lookup.Bypass.INSTANCE);
        }
    }

    /** Releases a removed entry's buffer and forgets it; Caffeine calls it once per entry. */
    private void removed(CacheKey key, CacheEntry entry, RemovalCause cause) {
        if (entry == null) {
            return; // only weak or soft values are collected to null; ours are strong
        }
        entry.removed = true;
        index.remove(entry);
        int rule = entry.policy.rule();
        meters.held(rule, -1, entry.size());
        if (cause.wasEvicted()) {
            meters.count(rule, c -> c.evictions);
        } else {
            meters.count(rule, c -> c.invalidations);
        }
        entry.release();
    }
}
