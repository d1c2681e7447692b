package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.session.ConnectionIdCall;
import io.shardgate.router.session.SqlModeLexing;
import io.shardgate.sharding.digest.Digest;

/**
 * Why a statement's text is refused before it is routed, whatever it is sent as (COM_QUERY or
 * COM_STMT_PREPARE): a CONNECTION_ID() the router cannot substitute ({@link ConnectionIdCall}), or
 * text the session's sql_mode reads otherwise than the router ({@link SqlModeLexing}).
 */
final class TextRefusal {
    private TextRefusal() {}

    /** The reason for ER_NOT_SUPPORTED_YET, or null to go on with {@code text} ({@code digest}). */
    static String of(SessionPort session, Digest digest, String text) {
        String refusal = ConnectionIdCall.refusal(digest, text);
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
