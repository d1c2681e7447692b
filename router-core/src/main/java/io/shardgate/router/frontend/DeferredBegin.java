package io.shardgate.router.frontend;

import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.session.PinReason;
import java.util.Locale;
import java.util.Set;

/**
 * A plain BEGIN answered by the router, text or prepared: it runs on each hostgroup as the setup
 * step of the transaction's first statement there, so a transaction on one shard begins and ends on
 * that shard only (see {@link FrontendSession#transactionDeclared}). The digest keeps non-reserved
 * words in the client's case, hence the upper-casing.
 */
final class DeferredBegin {
    /** Ends of a transaction that leave nothing behind when no backend began it (not AND CHAIN, RELEASE). */
    private static final Set<String> ENDS_ONLY = Set.of("COMMIT", "ROLLBACK", "COMMIT WORK", "ROLLBACK WORK");

    private DeferredBegin() {}

    /** Whether the session statement {@code digestText} (BEGIN..., START...) starts a transaction. */
    static boolean startsTransaction(String digestText) {
        return digestText.startsWith("BEGIN") || digestText.startsWith("START TRANSACTION");
    }

    /**
     * Declares the transaction and answers the client when the BEGIN ({@code digestText}, SQL
     * {@code sql}) has nothing to do before the first statement; false when it must run now.
     */
    static boolean tryDefer(FrontendSession session, String digestText, String sql) {
        String text = digestText.toUpperCase(Locale.ROOT);
        if (text.contains("CONSISTENT SNAPSHOT") || !nothingForBeginToEnd(session)) {
            return false; // the snapshot is taken at the START itself
        }
        session.transactionDeclared(sql);
        int flags = session.leases().statusFlags();
        if (text.contains("READ ONLY")) {
            flags |= ServerStatus.SERVER_STATUS_IN_TRANS_READONLY;
        }
        session.reply(1, OkPacket.of(0, 0, flags, 0));
        return true;
    }

    /** Answers a COMMIT / ROLLBACK of a transaction no backend began; false when there is one to end. */
    static boolean tryEndUnopened(FrontendSession session, String digestText) {
        if (!session.transactionOnlyDeclared() || !ENDS_ONLY.contains(digestText.toUpperCase(Locale.ROOT))) {
            return false;
        }
        session.endTransaction();
        session.reply(1, OkPacket.of(0, 0, session.leases().statusFlags(), 0));
        return true;
    }

    /** A BEGIN commits an open transaction and releases LOCK TABLES: with neither, it does nothing yet. */
    private static boolean nothingForBeginToEnd(FrontendSession session) {
        Set<PinReason> pins = session.leases().pins();
        return session.leases().inTransaction(null).isEmpty()
                && !pins.contains(PinReason.LOCK_TABLES)
                && !pins.contains(PinReason.XA);
    }
}
