package io.shardgate.router.execute;

import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.twophase.Xid;
import java.util.List;

/**
 * The client's COMMIT or ROLLBACK of a two_phase transaction (a plain transaction on its metadata
 * manager, XA START on each other hostgroup it reached): carried out by {@link XaCommit} on those
 * hostgroups, then answered with
 * OK or the error naming the shards and the xid. Either way the transaction is over.
 */
final class XaTransactionEnd {
    private XaTransactionEnd() {}

    /**
     * Ends the session's XA transaction if {@code digestText} is its COMMIT / ROLLBACK (true), or
     * refuses a form XA cannot do (true); false for a savepoint statement, which runs as usual.
     */
    static boolean handled(SessionPort session, String digestText, List<BackendLease> reached) {
        String refusal = TwoPhaseRules.endRefusal(digestText);
        if (refusal != null) {
            session.reply(1, Errors.notSupported(refusal));
            return true;
        }
        Boolean commit = TwoPhaseRules.xaEnd(digestText);
        if (commit == null) {
            return false;
        }
        if (reached.isEmpty()) { // every branch already gone (a deadlock rolled the only one back)
            session.transaction().end();
            session.reply(1, OkPacket.of(0, 0, session.leases().statusFlags(), 0));
            return true;
        }
        start(session, reached, commit);
        return true;
    }

    static void start(SessionPort session, List<BackendLease> reached, boolean commit) {
        Xid xid = session.transaction().xid();
        XaCommit end = new XaCommit(
                session.services().twoPhase(),
                xid,
                reached,
                session.transaction().readOnlyBranches(),
                error -> {
                    session.transaction().end();
                    session.finishRoutedWith(error);
                });
        session.startRouted(end::abandon);
        session.routedLossNote(end::lossNote);
        reached.forEach(BackendLease::writing); // read-your-writes counts from the end of the transaction
        if (commit) {
            end.commit();
        } else {
            end.rollback();
        }
    }
}
