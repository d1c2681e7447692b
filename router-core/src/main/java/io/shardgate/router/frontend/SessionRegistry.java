package io.shardgate.router.frontend;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The logged-in client sessions, for the admin interface and the graceful drain. Sessions add and
 * remove themselves; a snapshot asks each session on its own event loop, so it reads consistent
 * state without locks on the statement path.
 */
public final class SessionRegistry {
    private final Map<Integer, FrontendSession> sessions = new ConcurrentHashMap<>();
    /** Set once by {@link #drain}: sessions then close between statements (see {@link DrainDecision}). */
    private volatile boolean draining;
    /** Set once by {@link #endGrace}: every session still open is closed. */
    private volatile boolean graceOver;

    /**
     * Starts the graceful drain: each session is asked on its own loop and closes now if it is
     * idle outside a transaction; the others close when their statement or transaction ends.
     */
    public void drain() {
        draining = true;
        askEverySession();
    }

    /** The drain's grace is over: every session still open closes, transaction or not. */
    public void endGrace() {
        graceOver = true;
        askEverySession();
    }

    /** Whether the router is draining (readiness answers 503 from this moment). */
    public boolean draining() {
        return draining;
    }

    boolean graceOver() {
        return graceOver;
    }

    private void askEverySession() {
        for (FrontendSession session : sessions.values()) {
            session.client().eventLoop().execute(session::applyDrain);
        }
    }

    /**
     * Runs {@code done} (on some thread) once every statement on its way to or back from a backend
     * now has ended, and every transaction that touched one of {@code held} too: a move's cutover
     * waits for these before its hold is acknowledged (see {@link MovingTablesTouched}).
     */
    public void afterCutoverBarrier(java.util.Set<io.shardgate.cache.QualifiedTable> held, Runnable done) {
        List<FrontendSession> all = new ArrayList<>(sessions.values());
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(all.size() + 1);
        Runnable one = () -> {
            if (left.decrementAndGet() == 0) {
                done.run();
            }
        };
        for (FrontendSession session : all) {
            try {
                session.client().eventLoop().execute(() -> session.afterCutoverBarrier(held, one));
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                one.run();
            }
        }
        one.run();
    }

    void add(int connectionId, FrontendSession session) {
        sessions.put(connectionId, session);
    }

    void remove(int connectionId) {
        sessions.remove(connectionId);
    }

    /** The logged-in session with {@code connectionId}, or null. */
    public FrontendSession find(long connectionId) {
        return connectionId < 0 || connectionId > Integer.MAX_VALUE ? null : sessions.get((int) connectionId);
    }

    /**
     * Every session's {@link SessionInfo}, by connection id, handed to {@code then} on {@code
     * requester}: asked of each session on its own loop without blocking any loop (a session on
     * the requester's loop answers at once). Sessions closed meanwhile are left out.
     */
    public void snapshot(io.netty.channel.EventLoop requester, java.util.function.Consumer<List<SessionInfo>> then) {
        List<FrontendSession> all = new ArrayList<>(sessions.values());
        List<SessionInfo> out = java.util.Collections.synchronizedList(new ArrayList<>(all.size()));
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(all.size() + 1);
        Runnable one = () -> {
            if (left.decrementAndGet() == 0) {
                requester.execute(() -> {
                    List<SessionInfo> sorted = new ArrayList<>(out);
                    sorted.sort(Comparator.comparingInt(SessionInfo::connectionId));
                    then.accept(sorted);
                });
            }
        };
        for (FrontendSession session : all) {
            io.netty.channel.EventLoop loop = session.client().eventLoop();
            if (loop.inEventLoop()) {
                out.add(session.info());
                one.run();
            } else {
                loop.submit(session::info).addListener(f -> {
                    if (f.isSuccess()) {
                        out.add((SessionInfo) f.getNow());
                    }
                    one.run();
                });
            }
        }
        one.run();
    }

    /** Client sessions logged in right now. */
    public int count() {
        return sessions.size();
    }

    /** What every session buffers for its client (see {@link SessionBuffers}), asked on each session's loop. */
    public List<SessionBuffers> buffers() {
        List<io.netty.util.concurrent.Future<SessionBuffers>> asked = new ArrayList<>();
        for (FrontendSession session : sessions.values()) {
            asked.add(session.client().eventLoop().submit(session::buffers));
        }
        List<SessionBuffers> out = new ArrayList<>();
        for (var f : asked) {
            try {
                out.add(f.get(1, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                // closed meanwhile, or its loop is busy: skip it
            }
        }
        return out;
    }

    /** Every session, by connection id; sessions that do not answer within a second are left out. */
    public List<SessionInfo> snapshot() {
        List<io.netty.util.concurrent.Future<SessionInfo>> asked = new ArrayList<>();
        for (FrontendSession session : sessions.values()) {
            asked.add(session.client().eventLoop().submit(session::info));
        }
        List<SessionInfo> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        for (var f : asked) {
            try {
                out.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                // closed meanwhile, or its loop is busy: skip it
            }
        }
        out.sort(Comparator.comparingInt(SessionInfo::connectionId));
        return out;
    }
}
