package io.shardgate.router.pool;

/** Hears how the pool's connection attempts to its server go (the server's health keeps count). */
public interface ConnectHealth {
    ConnectHealth IGNORED = new ConnectHealth() {
        @Override
        public void connected() {}

        @Override
        public void connectFailed(String error) {}
    };

    /** A new connection logged in. */
    void connected();

    /** A TCP connection to the server could not be made (refused, unreachable, connect timeout). */
    void connectFailed(String error);
}
