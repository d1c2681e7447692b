package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;

/**
 * The part of a client session's life its command in flight and its CHANGE_USER exchange may
 * drive: run the next queued command, or end the session. {@link FrontendSession} implements it;
 * executors never see it (they have {@link SessionPort}).
 */
interface SessionLifecycle {
    /** True once the session has closed (or is closing). */
    boolean isClosed();

    /** The command in flight ended: run queued commands, or resume reading the client. */
    void drain();

    /** Sends {@code lastPacket} (an ERR) and closes the client; the backend connections are closed. */
    void closeWith(ByteBuf lastPacket);

    /** Closes the client; a backend connection in the middle of anything is closed too. */
    void close();
}
