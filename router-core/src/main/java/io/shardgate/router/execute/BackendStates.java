package io.shardgate.router.execute;

import io.netty.channel.EventLoop;
import io.shardgate.router.backend.BackendThread;
import io.shardgate.router.backend.DirectStatement;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.frontend.FrontendSession;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.frontend.SessionRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The STATE of a router session whose statement runs on a backend right now is the state of that
 * server thread ("Waiting for table metadata lock", "Sending data"...), as a client of MariaDB
 * sees it for its own thread: read from each such server's information_schema.PROCESSLIST, {@code
 * WHERE ID IN (...)}, on a connection of the router's own (outside the pool, like KILL).
 *
 * <p>A pooled connection serves the next session as soon as a statement ends, so a thread's state
 * read after the session's statement ended could be another session's. The state is shown only
 * when the session's loop confirms, after the answer arrived, that the same command is still in
 * flight on the same thread (a connection goes back to the pool on that loop, with the command's
 * end). A scatter's threads may be in different states: the first (in the session's lease order)
 * whose thread runs a command with a non-empty state is shown. When a server does not answer within
 * {@link #TIMEOUT_MILLIS}, or its threads are not visible to the router's account (no PROCESS
 * privilege), its sessions show the router's own state ("executing").
 */
final class BackendStates {
    private static final Logger log = LoggerFactory.getLogger(BackendStates.class);

    /** How long a process-list read waits for a server before showing the router's state. */
    static final long TIMEOUT_MILLIS = 1000;

    /** One server thread's process-list row: what it runs (COMMAND) and its STATE. */
    record ThreadRow(String command, String state) {}

    /** A thread of a server, as process-list rows of several servers are told apart. */
    record ServerThread(BackendAddress server, long threadId) {}

    private BackendStates() {}

    /** The statement that reads the rows of {@code threadIds} on one server. */
    static String query(List<Long> threadIds) {
        return threadIds.stream()
                .map(String::valueOf)
                .collect(Collectors.joining(
                        ", ", "SELECT ID, COMMAND, STATE FROM information_schema.PROCESSLIST WHERE ID IN (", ")"));
    }

    /**
     * The thread whose state {@code session} shows, given the rows read from its servers, or null
     * for the router's own: the first of its running threads whose row runs a command (not "Sleep":
     * that thread has answered already) with a state.
     */
    static BackendThread shown(SessionInfo session, Map<ServerThread, ThreadRow> rows) {
        for (BackendThread thread : session.running()) {
            ThreadRow row = rows.get(new ServerThread(thread.address(), thread.threadId()));
            if (row != null
                    && row.state() != null
                    && !row.state().isEmpty()
                    && !"Sleep".equalsIgnoreCase(row.command())) {
                return thread;
            }
        }
        return null;
    }

    /**
     * Reads the server-thread states of {@code sessions} and hands {@code then}, on {@code loop},
     * the confirmed ones by session id (none when no session runs anything on a backend).
     */
    static void read(
            SessionRegistry registry, EventLoop loop, List<SessionInfo> sessions, Consumer<Map<Integer, String>> then) {
        Map<BackendAddress, List<BackendThread>> byServer = new LinkedHashMap<>();
        for (SessionInfo s : sessions) {
            for (BackendThread t : s.running()) {
                byServer.computeIfAbsent(t.address(), a -> new ArrayList<>()).add(t);
            }
        }
        if (byServer.isEmpty()) {
            then.accept(Map.of());
            return;
        }
        Map<ServerThread, ThreadRow> rows = new HashMap<>(); // filled on loop only
        AtomicInteger left = new AtomicInteger(byServer.size());
        for (List<BackendThread> threads : byServer.values()) {
            BackendThread any = threads.get(0);
            String sql = query(
                    threads.stream().map(BackendThread::threadId).distinct().toList());
            DirectStatement.run(any.connector(), loop, any.address(), any.login(), sql, TIMEOUT_MILLIS)
                    .addListener(f -> {
                        if (f.isSuccess()) {
                            DirectStatement.Answer answer = (DirectStatement.Answer) f.getNow();
                            if (answer.error() != null) {
                                log.debug(
                                        "process list of {}: {}",
                                        any.address(),
                                        answer.error().message());
                            }
                            for (List<String> row : answer.rows()) {
                                rows.put(
                                        new ServerThread(any.address(), Long.parseLong(row.get(0))),
                                        new ThreadRow(row.get(1), row.get(2)));
                            }
                        } else {
                            log.debug(
                                    "process list of {}: {}",
                                    any.address(),
                                    f.cause().getMessage());
                        }
                        if (left.decrementAndGet() == 0) {
                            confirm(registry, loop, sessions, rows, then);
                        }
                    });
        }
    }

    /** Keeps the states whose session still runs the same command on the same thread. */
    private static void confirm(
            SessionRegistry registry,
            EventLoop loop,
            List<SessionInfo> sessions,
            Map<ServerThread, ThreadRow> rows,
            Consumer<Map<Integer, String>> then) {
        Map<Integer, String> states = new ConcurrentHashMap<>();
        List<Runnable> checks = new ArrayList<>();
        AtomicInteger left = new AtomicInteger(1);
        Runnable one = () -> {
            if (left.decrementAndGet() == 0) {
                loop.execute(() -> then.accept(Map.copyOf(states)));
            }
        };
        for (SessionInfo s : sessions) {
            BackendThread thread = shown(s, rows);
            FrontendSession session = thread == null ? null : registry.find(s.connectionId());
            if (session == null) {
                continue;
            }
            String state = rows.get(new ServerThread(thread.address(), thread.threadId()))
                    .state();
            left.incrementAndGet();
            checks.add(() -> session.client()
                    .eventLoop()
                    .submit(() -> session.stillRuns(s.commandSerial(), thread.address(), thread.threadId()))
                    .addListener(f -> {
                        if (f.isSuccess() && Boolean.TRUE.equals(f.getNow())) {
                            states.put(s.connectionId(), state);
                        }
                        one.run();
                    }));
        }
        checks.forEach(Runnable::run);
        one.run();
    }
}
