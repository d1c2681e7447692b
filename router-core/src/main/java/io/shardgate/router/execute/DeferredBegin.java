package io.shardgate.router.execute;

import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.twophase.Xid;

/**
 * A plain BEGIN answered by the router, text or prepared: it runs on each hostgroup as the setup
 * step of the transaction's first statement there, so a transaction on one shard begins and ends on
 * that shard only (see {@link SessionTransaction}). Whether a BEGIN may wait, and
 * whether a COMMIT / ROLLBACK has nothing to end, is {@link io.shardgate.router.routing.StatementRouter}'s
 * decision; this answers it.
 */
final class DeferredBegin {
    private DeferredBegin() {}

    /**
     * Declares the transaction begun by {@code sql} and answers the client's BEGIN with OK; in a
     * two_phase schema it gets an xid: the first hostgroup it reaches runs the BEGIN (its metadata
     * manager), the others XA START.
     */
    static void declare(SessionPort session, String sql, boolean readOnly) {
        Xid xid = null;
        if (TwoPhaseRules.usesXa(TwoPhaseRules.mode(session), readOnly)) {
            xid = session.services().twoPhase().next();
            if (xid == null) {
                session.reply(1, TwoPhaseRules.noEpoch());
                return;
            }
        }
        session.transaction()
                .declared(
                        sql,
                        xid,
                        xid == null ? null : session.services().twoPhase().decisions());
        int flags = session.leases().statusFlags();
        if (readOnly) {
            flags |= ServerStatus.SERVER_STATUS_IN_TRANS_READONLY;
        }
        session.reply(1, OkPacket.of(0, 0, flags, 0));
    }

    /** Answers a COMMIT / ROLLBACK of a transaction no backend began: it ends here. */
    static void endUnopened(SessionPort session) {
        session.transaction().end();
        session.reply(1, OkPacket.of(0, 0, session.leases().statusFlags(), 0));
    }
}
