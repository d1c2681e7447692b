package io.shardgate.router.backend;

import io.shardgate.protocol.packet.ErrPacket;

/**
 * A backend could not be reached or refused the router; carries the MySQL error to show the
 * client (the server's own ERR when it sent one).
 */
public final class BackendException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient ErrPacket error;

    public BackendException(ErrPacket error) {
        super(error.code() + " (" + error.sqlState() + "): " + error.message());
        this.error = error;
    }

    /** The error to relay to the client. */
    public ErrPacket error() {
        return error;
    }
}
