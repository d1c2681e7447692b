package io.shardgate.router.pool;

import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_DEPRECATE_EOF;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.BackendException;
import io.shardgate.router.backend.BackendLogin;
import io.shardgate.router.session.SessionVariables;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of a {@link BackendPool} that lives on one event loop: its idle connections (most
 * recently used first, so a small working set stays warm and the rest ages out) and the sessions
 * waiting for one. Every method runs on {@link #loop()}.
 */
public final class PoolPartition {
    private static final Logger log = LoggerFactory.getLogger(PoolPartition.class);
    /** Error code ProxySQL uses for the same condition; Shardgate's own codes start at 9000. */
    public static final int ER_MAX_CONNECT_TIMEOUT = 9001;
    /** The server is SHUNNED or OFFLINE: answered at once rather than after the acquire timeout. */
    public static final int ER_SERVER_UNAVAILABLE = 9002;
    /** ER_SERVER_SHUTDOWN: the router is closing its pools. */
    public static final int ER_SERVER_SHUTDOWN = 1053;

    /** The error BackendConnector gives when the TCP connection itself fails. */
    private static final int CANT_CONNECT = 2003;

    /** How long a waiter relies on its own loop before other loops give up an idle connection. */
    static final long STEAL_AFTER_MILLIS = 20;

    private final BackendPool pool;
    private final EventLoop loop;
    private final ArrayDeque<PooledConnection> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Every connection this partition opened and has not closed, idle or borrowed. */
    private final java.util.Set<PooledConnection> all = new java.util.HashSet<>();
    /** Connections this partition opened and has not closed; written by its loop only. */
    private volatile int owned;
    /** Waiters here while this loop holds less than its fair share; read by other loops. */
    private volatile boolean starving;
    /**
     * Whether {@link #waiters} is non-empty, for other loops to read: the deque is this loop's
     * alone. Published by {@link #updateStarving} after every enqueue (a stale {@code true} after
     * a dequeue only costs a spurious {@link #serveWaiters}).
     */
    private volatile boolean waiting;

    private final ScheduledFuture<?> evictor;

    /**
     * The one timer that fails waiters whose acquire bound passed, or null when none is set.
     * Waiters queue in arrival order and share one bound, so deadlines grow along the queue and
     * a single timer for the head does what a timer per waiter did — without a scheduled task (a
     * priority-queue insert and cancel) per waiting statement, which with thousands of clients on
     * a few hundred connections is nearly every statement.
     */
    private ScheduledFuture<?> expiry;
    /** Whether the timer that asks other loops for room is set (one per partition, not per waiter). */
    private boolean roomCheckPending;

    /** A session waiting for a connection of a kind until {@code deadlineNanos}. */
    private record Waiter(ConnectionKind kind, Promise<PooledConnection> promise, long deadlineNanos) {}

    PoolPartition(BackendPool pool, EventLoop loop) {
        this.pool = pool;
        this.loop = loop;
        long every = Math.max(100, pool.settings().idleTimeoutMillis() / 4);
        this.evictor = loop.scheduleWithFixedDelay(this::evictIdle, every, every, TimeUnit.MILLISECONDS);
    }

    EventLoop loop() {
        return loop;
    }

    /** The pool this partition belongs to. */
    public BackendPool pool() {
        return pool;
    }

    /**
     * Borrows a connection of {@code kind}: an idle one, a new one if the server has a free slot,
     * or the next one released; fails with MySQL error 9001 after {@code acquire_timeout_millis}.
     */
    public Future<PooledConnection> acquire(ConnectionKind kind) {
        return acquire(kind, null);
    }

    /**
     * Like {@link #acquire(ConnectionKind)}, preferring {@code previous} (the connection the
     * session used last) when it is idle: the server session keeps its caches warm and the
     * statement cache of that connection already holds the session's prepared statements.
     */
    public Future<PooledConnection> acquire(ConnectionKind kind, PooledConnection previous) {
        Promise<PooledConnection> promise = loop.newPromise();
        if (pool.closed()) {
            return promise.setFailure(shutdown());
        }
        if (pool.refusal() != null) {
            return promise.setFailure(unavailable());
        }
        PooledConnection c = previous != null
                        && previous.kind().equals(kind)
                        && previous.usable()
                        && !expired(previous, System.nanoTime())
                        && idle.remove(previous)
                ? previous
                : pollIdle(kind);
        if (c != null) {
            promise.setSuccess(c);
        } else if (pool.tryReserve()) {
            open(kind, promise);
        } else if (shedOneIdle() && pool.tryReserve()) {
            open(kind, promise);
        } else {
            long deadline = System.nanoTime()
                    + TimeUnit.MILLISECONDS.toNanos(pool.settings().acquireTimeoutMillis());
            waiters.add(new Waiter(kind, promise, deadline));
            if (expiry == null) {
                expireWaitersAt(deadline);
            }
            updateStarving();
            // another loop may have freed a slot after our tryReserve and read "no waiters" before
            // updateStarving published ours: look once more (either it sees us or we see its slot)
            serveWaitersNow();
            if (starving && !roomCheckPending) {
                // statements end within milliseconds: wait briefly for one of this loop's
                // connections before making another loop close an idle one (a reconnect costs far more)
                roomCheckPending = true;
                loop.schedule(this::requestRoomIfStarving, STEAL_AFTER_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
        return promise;
    }

    /**
     * Asks the other loops for an idle connection while this one waits with less than its fair
     * share. Only then: when every loop holds its share and has waiters, taking a connection from
     * another loop just closes one there to open one here, and each reconnect (TCP, handshake,
     * authentication, a new server thread) costs more than the many statements it delays.
     */
    private void requestRoomIfStarving() {
        roomCheckPending = false;
        dropDoneWaiters();
        updateStarving();
        if (starving) {
            pool.requestRoom(this);
            roomCheckPending = true;
            loop.schedule(this::requestRoomIfStarving, STEAL_AFTER_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Drops waiters at the head of the queue that were served or gave up. */
    private void dropDoneWaiters() {
        while (!waiters.isEmpty() && waiters.peek().promise().isDone()) {
            waiters.poll();
        }
    }

    private void expireWaitersAt(long deadlineNanos) {
        long delay = Math.max(0, deadlineNanos - System.nanoTime());
        expiry = loop.schedule(this::expireWaiters, delay, TimeUnit.NANOSECONDS);
    }

    /** The expiry timer: fails the waiters whose bound passed, then waits for the next head's. */
    private void expireWaiters() {
        expiry = null;
        long now = System.nanoTime();
        boolean failed = false;
        Waiter w;
        while ((w = waiters.peek()) != null) {
            if (w.promise().isDone()) {
                waiters.poll();
            } else if (w.deadlineNanos() - now <= 0) {
                waiters.poll();
                failed = true;
                timeOut(w.promise());
            } else {
                expireWaitersAt(w.deadlineNanos());
                break;
            }
        }
        if (failed) {
            updateStarving();
        }
    }

    private void timeOut(Promise<PooledConnection> promise) {
        pool.timeouts.increment();
        promise.tryFailure(new BackendException(new ErrPacket(
                ER_MAX_CONNECT_TIMEOUT,
                "HY000",
                "Max connect timeout reached while reaching hostgroup "
                        + pool.hostgroup().id() + " after " + pool.settings().acquireTimeoutMillis()
                        + "ms (all " + pool.settings().maxConnections() + " connections to " + pool.address()
                        + " busy)")));
    }

    private static BackendException shutdown() {
        return new BackendException(new ErrPacket(ER_SERVER_SHUTDOWN, "08S01", "Server shutdown in progress"));
    }

    private BackendException unavailable() {
        return new BackendException(new ErrPacket(
                ER_SERVER_UNAVAILABLE, "HY000", "hostgroup " + pool.hostgroup().id() + ": " + pool.refusal()));
    }

    private PooledConnection pollIdle(ConnectionKind kind) {
        long now = System.nanoTime();
        for (Iterator<PooledConnection> it = idle.iterator(); it.hasNext(); ) {
            PooledConnection c = it.next();
            if (!c.usable() || expired(c, now)) {
                it.remove();
                discard(c);
            } else if (c.kind().equals(kind)) {
                it.remove();
                return c;
            }
        }
        return null;
    }

    /** Past {@code max_lifetime_millis}, or opened before a GLOBAL change it did not see. */
    private boolean expired(PooledConnection c, long now) {
        return now - c.createdNanos()
                        > TimeUnit.MILLISECONDS.toNanos(pool.settings().maxLifetimeMillis())
                || c.globalsVersion() != pool.globalsVersion();
    }

    private void open(ConnectionKind kind, Promise<PooledConnection> promise) {
        owned++;
        // read before the login: a change that lands during it may or may not be in the session
        long globals = pool.globalsVersion();
        BackendLogin login = new BackendLogin(
                pool.hostgroup().user(),
                pool.hostgroup().password(),
                kind.schema(),
                kind.characterSet(),
                BackendConnector.BASE_CAPABILITIES | kind.capabilities(),
                kind.mariaDbCapabilities(),
                pool.hostgroup().tlsSettings());
        Future<BackendConnection> connect = pool.connector().connect(loop, pool.address(), login);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                pool.connectFailures.increment();
                if (f.cause() instanceof BackendException be && be.error().code() == CANT_CONNECT) {
                    // refused or unreachable: the server is down. A slow login only says it is busy,
                    // and shunning a busy server would turn load into an outage
                    pool.health().connectFailed(f.cause().getMessage());
                }
                owned--;
                pool.slotFreed(this);
                promise.tryFailure(f.cause());
                return;
            }
            pool.created.increment();
            pool.health().connected();
            BackendConnection connection = connect.getNow();
            int missing = kind.capabilities() & ~connection.capabilities().flags();
            int missingMariaDb =
                    kind.mariaDbCapabilities() & ~connection.capabilities().mariaDbFlags();
            if (missing != 0 || missingMariaDb != 0) {
                connection.close();
                owned--;
                pool.slotFreed(this);
                promise.tryFailure(new BackendException(new ErrPacket(
                        ErrorCode.ER_NOT_SUPPORTED_YET.code(),
                        ErrorCode.ER_NOT_SUPPORTED_YET.sqlState(),
                        "client capabilities 0x" + Integer.toHexString(missing) + "/0x"
                                + Integer.toHexString(missingMariaDb) + " that backend " + connection.label()
                                + " lacks")));
                return;
            }
            boolean deprecateEof = (connection.capabilities().flags() & CLIENT_DEPRECATE_EOF) != 0;
            PooledConnection c = new PooledConnection(
                    connection,
                    deprecateEof,
                    pool.connector().queryTimeoutMillis(),
                    this,
                    kind,
                    SessionVariables.initial(kind.schema()),
                    globals);
            all.add(c);
            if (!promise.trySuccess(c)) {
                release(c); // the borrower gave up meanwhile
            }
        });
    }

    /** Returns a connection whose last response completed and whose session holds nothing private. */
    public void release(PooledConnection c) {
        if (!c.usable() || pool.closed() || pool.refusal() != null || expired(c, System.nanoTime())) {
            discard(c);
            return;
        }
        if (owned > pool.fairShare() && pool.anotherStarving(this)) {
            // another loop waits with less than its share: give it this slot rather than keep it
            discard(c);
            return;
        }
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.promise().isDone()) {
                it.remove();
            } else if (w.kind().equals(c.kind())) {
                it.remove();
                if (w.promise().trySuccess(c)) {
                    updateStarving();
                    return;
                }
            }
        }
        c.markIdle(System.nanoTime());
        idle.addFirst(c);
        if (!waiters.isEmpty()) {
            // waiters for another kind: this idle connection's slot serves them better
            shedOneIdle();
        }
    }

    /** Closes a connection that must not be reused (dead, dirty, or of no use) and frees its slot. */
    public void discard(PooledConnection c) {
        log.debug("{}: closing {}", pool.label(), c);
        if (c.markDiscarded()) {
            owned--;
            idle.remove(c);
            all.remove(c);
            // the slot is free once the socket is closed, not while the close is still queued
            c.channel().closeFuture().addListener(f -> pool.slotFreed(this));
            c.relay().closeQuietly(c.channel());
        }
    }

    void idleConnectionLost(PooledConnection c) {
        log.debug("{}: idle connection closed by the server", pool.label());
        discard(c);
    }

    /** Closes the least recently used idle connection; true if there was one. */
    boolean shedOneIdle() {
        PooledConnection c = idle.pollLast();
        if (c == null) {
            return false;
        }
        discard(c);
        return true;
    }

    boolean starving() {
        return starving;
    }

    /** Safe from any thread (other loops ask when they free a slot). */
    boolean hasWaiters() {
        return waiting;
    }

    /** The server takes no new work: waiters fail now, idle connections close. */
    void refuseWork() {
        if (pool.refusal() == null) {
            return; // back ONLINE meanwhile
        }
        PooledConnection c;
        while ((c = idle.poll()) != null) {
            discard(c);
        }
        failWaiters(unavailable());
    }

    private void failWaiters(Throwable cause) {
        Waiter w;
        while ((w = waiters.poll()) != null) {
            w.promise().tryFailure(cause);
        }
        if (expiry != null) {
            expiry.cancel(false);
            expiry = null;
        }
        updateStarving();
    }

    /** OFFLINE_HARD: closes every connection; borrowers see their backend lost. */
    void closeEveryConnection() {
        for (PooledConnection c : List.copyOf(all)) {
            if (idle.contains(c)) {
                discard(c);
            } else {
                c.channel().close();
            }
        }
    }

    /** A slot became free: open a connection for the longest waiter. */
    void serveWaiters() {
        try {
            serveWaitersNow();
        } finally {
            updateStarving();
        }
    }

    private void updateStarving() {
        waiting = !waiters.isEmpty();
        starving = waiting && owned < pool.fairShare();
    }

    private void serveWaitersNow() {
        if (pool.refusal() != null) {
            failWaiters(unavailable());
            return;
        }
        while (!waiters.isEmpty()) {
            Waiter w = waiters.peek();
            if (w.promise().isDone()) {
                waiters.poll();
                continue;
            }
            PooledConnection c = pollIdle(w.kind());
            if (c != null || pool.tryReserve()) {
                waiters.poll();
                if (c != null) {
                    if (!w.promise().trySuccess(c)) {
                        release(c);
                    }
                } else {
                    open(w.kind(), w.promise());
                }
            } else {
                return;
            }
        }
    }

    private void evictIdle() {
        long now = System.nanoTime();
        long limit = TimeUnit.MILLISECONDS.toNanos(pool.settings().idleTimeoutMillis());
        for (Iterator<PooledConnection> it = idle.descendingIterator(); it.hasNext(); ) {
            PooledConnection c = it.next();
            if (now - c.idleSinceNanos() > limit || expired(c, now) || !c.usable()) {
                it.remove();
                discard(c);
            }
        }
    }

    int idleCount() {
        return idle.size();
    }

    int waiterCount() {
        return waiters.size();
    }

    void closeAll() {
        evictor.cancel(false);
        PooledConnection c;
        while ((c = idle.poll()) != null) {
            discard(c);
        }
        failWaiters(shutdown());
    }
}
