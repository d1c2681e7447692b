package io.shardgate.it.proxy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The router's sessions as the backend sees them: rows of MariaDB's {@code
 * information_schema.PROCESSLIST} for the router's backend account, read on a direct connection.
 */
final class BackendSessions {
    /** How long a closed connection may take to leave the process list; far above normal. */
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private BackendSessions() {}

    /** Thread ids of the backend account's connections (including the one asking). */
    static Set<Long> ids(ProxyCluster cluster) throws SQLException {
        try (Connection c = cluster.direct()) {
            return ids(c);
        }
    }

    private static Set<Long> ids(Connection direct) throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (PreparedStatement ps =
                direct.prepareStatement("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?")) {
            ps.setString(1, ProxyCluster.BACKEND_USER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    /** Waits until backend connection {@code id} runs {@code sql}; false after {@link #DEADLINE}. */
    static boolean awaitStatement(ProxyCluster cluster, long id, String sql) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        try (Connection direct = cluster.direct();
                PreparedStatement ps =
                        direct.prepareStatement("SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = ?")) {
            ps.setLong(1, id);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && sql.equals(rs.getString(1))) {
                        return true;
                    }
                }
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(20);
            }
        }
    }

    /**
     * Polls the backend account's connection ids until {@code done} holds; false when it still
     * does not after {@link #DEADLINE} (the router kept a connection open).
     */
    static boolean await(ProxyCluster cluster, Predicate<Set<Long>> done) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        try (Connection direct = cluster.direct()) {
            while (!done.test(ids(direct))) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(50);
            }
        }
        return true;
    }

    /** Waits until backend connection {@code id} has left the process list; false after {@link #DEADLINE}. */
    static boolean awaitGone(ProxyCluster cluster, long id) throws SQLException, InterruptedException {
        return await(cluster, ids -> !ids.contains(id));
    }
}
