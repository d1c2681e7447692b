package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.session.ConnectionIdCall;
import io.shardgate.router.session.SqlModeLexing;
import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Mark;

/**
 * Why a statement's text is refused before it is routed, whatever it is sent as (COM_QUERY or
 * COM_STMT_PREPARE): a CONNECTION_ID() the router cannot substitute ({@link ConnectionIdCall}),
 * {@code @@last_gtid} where backend connections are shared ({@link #lastGtidExact}), or text the
 * session's sql_mode reads otherwise than the router ({@link SqlModeLexing}).
 */
final class TextRefusal {
    private TextRefusal() {}

    static final String LAST_GTID = "@@last_gtid while backend connections are shared: the server session that"
            + " committed this session's last transaction may since have committed another client's, or be another"
            + " one (set pool.multiplexing: false on a router with one hostgroup to read it)";

    /**
     * Whether {@code @@last_gtid} reads this session's last commit: only where each client session
     * keeps one backend connection for good (multiplexing off) and every statement goes to it (one hostgroup).
     */
    static boolean lastGtidExact(Hostgroups hostgroups) {
        var all = hostgroups.all();
        return all.size() == 1 && !all.iterator().next().config().pool().multiplexing();
    }

    /** The reason for ER_NOT_SUPPORTED_YET, or null to go on with {@code text} ({@code digest}). */
    static String of(SessionPort session, Digest digest, String text) {
        String refusal = ConnectionIdCall.refusal(digest, text);
        if (refusal == null
                && digest.has(Mark.LAST_GTID)
                && !lastGtidExact(session.services().hostgroups())) {
            refusal = LAST_GTID;
        }
        return refusal != null
                ? refusal
                : SqlModeLexing.refusal(
                        session.desired().sqlModeHazards(),
                        session.services().hostgroups().globalSqlModeHazards(),
                        digest,
                        text,
                        session.services().routing().current());
    }
}
