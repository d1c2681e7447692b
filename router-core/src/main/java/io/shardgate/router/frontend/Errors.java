package io.shardgate.router.frontend;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.routing.Decision;

/** ERR packets the router composes itself, with its own wording. */
final class Errors {
    private Errors() {}

    /** {@code code} with a message of the router's rather than MySQL's template. */
    static ErrPacket of(ErrorCode code, String message) {
        return new ErrPacket(code.code(), code.sqlState(), message);
    }

    /** ER_NOT_SUPPORTED_YET: "This version of Shardgate doesn't yet support '...'". */
    static ErrPacket notSupported(String what) {
        return of(Decision.Refuse.notSupported(what));
    }

    /** The ERR of a refused statement. */
    static ErrPacket of(Decision.Refuse refuse) {
        return new ErrPacket(refuse.code(), refuse.sqlState(), refuse.message());
    }
}
