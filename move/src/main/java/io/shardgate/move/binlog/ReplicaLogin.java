package io.shardgate.move.binlog;

import java.util.Objects;

/**
 * How a tail connects to the source as a replica: address, an account with REPLICATION SLAVE (or
 * REPLICATION REPLICA) and REPLICATION CLIENT, and a server id no other replica of that source uses
 * (a second connection with the same id makes the server drop the first).
 */
public record ReplicaLogin(String host, int port, String user, String password, long serverId) {
    public ReplicaLogin {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (serverId <= 0 || serverId > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("a replica's server id is 1 .. 4294967295, not " + serverId);
        }
    }

    @Override
    public String toString() {
        return user + "@" + host + ":" + port + " as server id " + serverId; // never the password
    }
}
