package io.shardgate.router.execute;

import io.netty.channel.EventLoop;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.frontend.SessionRegistry;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.ProcesslistQuery;
import java.util.List;
import java.util.Map;

/**
 * {@code SHOW [FULL] PROCESSLIST}, COM_PROCESS_INFO and the supported SELECTs from
 * information_schema.PROCESSLIST: answered by the router with its own sessions (see
 * {@link ProcesslistRows}), gathered from each session's event loop without blocking this one; a
 * session running a statement on a backend shows that server thread's state when the answer reads
 * STATE ({@link BackendStates}).
 */
public final class ProcesslistCommand {
    private ProcesslistCommand() {}

    /** Answers {@code query} for {@code session}. */
    public static void run(SessionPort session, ProcesslistQuery query) {
        if (query.refusal() != null) {
            session.reply(1, Errors.notSupported(query.refusal()));
            return;
        }
        String user = session.user().name();
        boolean admin = session.user().connectionAdmin();
        session.startRouted(() -> {});
        SessionRegistry registry = session.services().sessions();
        EventLoop loop = session.client().eventLoop();
        registry.snapshot(loop, all -> {
            List<SessionInfo> sessions = ProcesslistRows.visible(all, user, admin);
            if (query.readsState()) {
                BackendStates.read(registry, loop, sessions, states -> answer(session, query, sessions, states));
            } else {
                answer(session, query, sessions, Map.of());
            }
        });
    }

    private static void answer(
            SessionPort session, ProcesslistQuery query, List<SessionInfo> sessions, Map<Integer, String> states) {
        session.finishRouted(TextResultSet.write(
                session.client().alloc(),
                session.capabilities(),
                ProcesslistRows.columns(query),
                ProcesslistRows.rows(query, sessions, states),
                session.leases().statusFlags()));
    }
}
