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
 * The logged-in client sessions, for the admin interface. Sessions add and remove themselves;
 * a snapshot asks each session on its own event loop, so it reads consistent state without locks
 * on the statement path.
 */
public final class SessionRegistry {
    private final Map<Integer, FrontendSession> sessions = new ConcurrentHashMap<>();

    void add(int connectionId, FrontendSession session) {
        sessions.put(connectionId, session);
    }

    void remove(int connectionId) {
        sessions.remove(connectionId);
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
