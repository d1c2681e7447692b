package io.shardgate.router.execute;

import io.shardgate.protocol.frame.Packet;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.LastInsertId;

/**
 * Before a statement that reads LAST_INSERT_ID() by name (text or prepared): the session's value
 * must be known or held (see {@link LastInsertId}). Where the holder may have set nothing after the
 * value was lost, or may still hold the router's key, it is read off the holder first; where nothing
 * knows it, the statement is refused.
 */
final class LastInsertIdCheck {
    private LastInsertIdCheck() {}

    /**
     * True when the statement does not run now: refused (answered), or {@code again} runs it once
     * the value is read; either way {@code packet}'s ownership is taken. False: run it now.
     */
    static boolean waits(SessionPort session, Packet packet, Runnable again) {
        LastInsertId id = session.lastInsertId();
        if (id.readFirst() && id.holder() instanceof BackendLease holder && holder.current() != null) {
            session.readLastInsertId(holder, again, packet::release);
            return true;
        }
        if (id.unknown()) {
            packet.release();
            session.reply(1, Errors.notSupported(LastInsertId.UNKNOWN));
            return true;
        }
        return false;
    }
}
