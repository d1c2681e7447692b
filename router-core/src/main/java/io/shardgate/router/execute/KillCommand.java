package io.shardgate.router.execute;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendKill;
import io.shardgate.router.backend.BackendThread;
import io.shardgate.router.frontend.FrontendSession;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.frontend.SessionRegistry;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.KillStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code KILL [QUERY | CONNECTION] id} through the router, where id is a router session:
 * KILL QUERY interrupts the statement that session runs on every backend connection it uses at
 * that moment (each shard of a scatter) by sending {@code KILL QUERY <backend thread id>} to that
 * server on a connection of its own ({@link BackendKill}); the interrupted client gets the backend's
 * answer (1317 "Query execution was interrupted") and its session stays usable. KILL [CONNECTION]
 * closes the session, killing what it runs first. Errors as MySQL's: 1094 for an unknown id, 1095
 * for another user's session unless the killer has {@code connection_admin}.
 *
 * <p>Race design. The victim session's leases are examined and marked on the victim's own event
 * loop, the only thread that ever gives its connections back to the pool. A connection is a
 * target only while a response to this session's command is outstanding on it, and marking it
 * ({@code PooledConnection.markKillTarget}) means the pool never takes it back: it is closed when
 * the session lets go of it. So the backend thread id captured at that moment belongs, for as long
 * as the KILL can travel, either to the victim's statement or to a closed connection (MySQL and
 * MariaDB do not reuse thread ids) — never to another session that borrowed the connection next.
 * The statement may still finish before the KILL lands; then the kill finds a thread that is idle
 * or gone and changes nothing anyone else sees. A connection pinned to the victim (transaction)
 * stays with it, so at worst the victim's next statement is the one interrupted.
 */
public final class KillCommand {
    private static final Logger log = LoggerFactory.getLogger(KillCommand.class);

    /** What the victim's loop found: targets to kill, or the error to answer. */
    private record Found(List<BackendThread> targets, ErrPacket error) {}

    private KillCommand() {}

    /** Carries out {@code kill} for {@code session} (the killer), answering it when done. */
    public static void run(SessionPort session, KillStatement kill) {
        if (kill.refusal() != null) {
            session.reply(1, Errors.notSupported(kill.refusal()));
            return;
        }
        SessionRegistry registry = session.services().sessions();
        FrontendSession victim = registry.find(kill.id());
        if (victim == null) {
            session.reply(1, ErrPacket.of(ErrorCode.ER_NO_SUCH_THREAD, kill.id()));
            return;
        }
        if (kill.id() == session.connectionId()) {
            // MySQL: a session's KILL QUERY of itself interrupts that very KILL; KILL of itself ends it
            if (kill.query()) {
                session.reply(1, ErrPacket.of(ErrorCode.ER_QUERY_INTERRUPTED));
            } else {
                victim.killConnection(ErrPacket.of(ErrorCode.ER_CONNECTION_KILLED));
            }
            return;
        }
        String killer = session.user().name();
        boolean admin = session.user().connectionAdmin();
        EventLoop here = session.client().eventLoop();
        session.startRouted(() -> {});
        victim.client()
                .eventLoop()
                .submit(() -> prepare(victim, kill, killer, admin))
                .addListener(f -> here.execute(() -> {
                    Found found = f.isSuccess()
                            ? (Found) f.getNow()
                            : new Found(List.of(), ErrPacket.of(ErrorCode.ER_NO_SUCH_THREAD, kill.id()));
                    if (found.error() != null) {
                        session.finishRouted(session.frame(1, found.error()::write));
                    } else {
                        send(session, kill, found.targets());
                    }
                }));
    }

    /** On the victim's loop: checks the killer may, marks what runs, and closes it for KILL CONNECTION. */
    private static Found prepare(FrontendSession victim, KillStatement kill, String killer, boolean admin) {
        if (victim.isClosed()) {
            return new Found(List.of(), ErrPacket.of(ErrorCode.ER_NO_SUCH_THREAD, kill.id()));
        }
        if (!admin && !victim.port().user().name().equals(killer)) {
            return new Found(List.of(), ErrPacket.of(ErrorCode.ER_KILL_DENIED_ERROR, kill.id()));
        }
        List<BackendThread> targets = new ArrayList<>(2);
        for (BackendLease lease : victim.port().leases().all()) {
            BackendThread running = lease.killTarget();
            if (running != null) {
                targets.add(running);
            }
        }
        if (!kill.query()) {
            victim.killConnection(null);
        }
        return new Found(targets, null);
    }

    /** Sends each backend KILL and answers the killer once every one has been answered. */
    private static void send(SessionPort session, KillStatement kill, List<BackendThread> targets) {
        AtomicInteger left = new AtomicInteger(targets.size() + 1);
        Runnable answer = () -> {
            if (left.decrementAndGet() == 0) {
                session.finishRouted(session.frame(
                        1,
                        out -> OkPacket.of(0, 0, session.leases().statusFlags(), 0)
                                .write(out, session.capabilities())));
            }
        };
        EventLoop here = session.client().eventLoop();
        for (BackendThread t : targets) {
            Future<Void> sent =
                    BackendKill.send(t.connector(), here, t.address(), t.login(), t.threadId(), !kill.query());
            sent.addListener(f -> {
                if (!f.isSuccess()) {
                    // the session's statement may go on running; the backend connection is never reused
                    log.warn(
                            "KILL {} of session {}: backend {} thread {}: {}",
                            kill.query() ? "QUERY" : "CONNECTION",
                            kill.id(),
                            t.address(),
                            t.threadId(),
                            f.cause().getMessage());
                }
                answer.run();
            });
        }
        answer.run();
    }
}
