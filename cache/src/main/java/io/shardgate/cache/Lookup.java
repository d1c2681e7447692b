package io.shardgate.cache;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletionStage;

/**
 * The answer of {@link ResultCache#lookup}: never blocks, so an event loop can act on it at once.
 */
public sealed interface Lookup permits Lookup.Hit, Lookup.Fill, Lookup.Wait, Lookup.Bypass {

    /**
     * The stored response: complete framed packets whose sequence ids start at 1, as every
     * response to COM_QUERY and COM_STMT_EXECUTE does, so they are written to the client as they
     * are. The caller owns one reference of the read-only buffer and must write it (Netty
     * releases it) or release it.
     */
    record Hit(ByteBuf response) implements Lookup {}

    /**
     * A miss this caller fills: run the statement on the backend, collect the response bytes sent
     * to the client, then {@link ResultCache#complete} the ticket with them, or {@link
     * ResultCache#abandon} it on any error, disconnect, or a response past {@link
     * ResultCache#maxEntryBytes()}. Exactly one of the two must follow, or others waiting on this
     * key wait until the fill timeout lets a later lookup take over.
     */
    record Fill(FillTicket ticket) implements Lookup {}

    /**
     * Another session is filling this key. The stage completes, on the filler's thread, with a
     * {@link Hit} (whose buffer the receiver owns and must write or release, even when its session
     * is gone) or with {@link Bypass} when the filler abandoned or the result could not be stored.
     * Hop to your own event loop before touching the session.
     */
    record Wait(CompletionStage<Lookup> result) implements Lookup {}

    /** Run the statement on the backend and store nothing. */
    record Bypass() implements Lookup {
        static final Bypass INSTANCE = new Bypass();
    }
}
