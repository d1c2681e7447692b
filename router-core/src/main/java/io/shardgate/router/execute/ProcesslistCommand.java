package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.ProcesslistQuery;
import java.util.List;

/**
 * {@code SHOW [FULL] PROCESSLIST}, COM_PROCESS_INFO and the supported SELECTs from
 * information_schema.PROCESSLIST: answered by the router with its own sessions (see
 * {@link ProcesslistRows}), gathered from each session's event loop without blocking this one.
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
        session.services().sessions().snapshot(session.client().eventLoop(), sessions -> {
            List<TextResultSet.Column> columns = ProcesslistRows.columns(query);
            List<List<Object>> rows = ProcesslistRows.rows(query, sessions, user, admin);
            session.finishRouted(TextResultSet.write(
                    session.client().alloc(),
                    session.capabilities(),
                    columns,
                    rows,
                    session.leases().statusFlags()));
        });
    }
}
