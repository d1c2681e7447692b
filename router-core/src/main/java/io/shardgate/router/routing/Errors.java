package io.shardgate.router.routing;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;

/** ERR packets the router composes itself, with its own wording. */
public final class Errors {
    private Errors() {}

    /** {@code code} with a message of the router's rather than MySQL's template. */
    public static ErrPacket of(ErrorCode code, String message) {
        return new ErrPacket(code.code(), code.sqlState(), message);
    }

    /** ER_NOT_SUPPORTED_YET: "This version of Shardgate doesn't yet support '...'". */
    public static ErrPacket notSupported(String what) {
        return of(Decision.Refuse.notSupported(what));
    }

    /** The ERR of a refused statement. */
    public static ErrPacket of(Decision.Refuse refuse) {
        return new ErrPacket(refuse.code(), refuse.sqlState(), refuse.message());
    }
}
