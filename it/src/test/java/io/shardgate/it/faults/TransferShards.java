package io.shardgate.it.faults;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;

/**
 * What the two-phase fault ITs ({@link TwoPhaseRouterKillIT}, {@link TwoPhaseShardFaultIT}) read on
 * a shard, straight past the router: its prepared XA branches, its accounts' sum and its ledger of
 * per-client sequence rows (table {@code items}: {@code note = 'account'} rows hold balances in
 * {@code qty}, {@code note = 'seq client:n'} rows one per transfer).
 */
final class TransferShards {
    private TransferShards() {}

    /** The gtrids of the XA branches prepared on {@code hostgroup}. */
    static Set<String> gtrids(FaultCluster cluster, int hostgroup) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                out.add(rs.getString(4).substring(0, rs.getInt(2)));
            }
        }
        return out;
    }

    /**
     * The decision row of the transaction {@code gtrid} on its metadata manager (the hostgroup the
     * id names): "commit", "rollback", or "none" (no row, or no table yet).
     */
    static String decision(FaultCluster cluster, String gtrid) throws SQLException {
        io.shardgate.router.twophase.Xid xid = io.shardgate.router.twophase.Xid.parse(gtrid);
        if (xid == null) {
            return "not a Shardgate id";
        }
        try (Connection c = cluster.direct(xid.manager());
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT outcome FROM shardgate.twophase_decisions WHERE id = '" + gtrid + "'")) {
            return rs.next() ? rs.getString(1) : "none";
        } catch (SQLException e) {
            if (e.getErrorCode() == 1146 || e.getErrorCode() == 1049) {
                return "none";
            }
            throw e;
        }
    }

    /** How many branches are prepared on {@code hostgroup}, -1 while it cannot be asked. */
    static int prepared(FaultCluster cluster, int hostgroup) {
        try {
            return gtrids(cluster, hostgroup).size();
        } catch (SQLException e) {
            return -1;
        }
    }

    /** The sum of the balances on {@code hostgroup}. */
    static long sum(FaultCluster cluster, int hostgroup) throws SQLException {
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT SUM(qty) FROM items WHERE note = 'account'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The sequence rows of a shard, as "client:n". */
    static Set<String> ledger(FaultCluster cluster, int hostgroup) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Connection c = cluster.direct(hostgroup);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT note FROM items WHERE note LIKE 'seq %'")) {
            while (rs.next()) {
                out.add(rs.getString(1).substring(4));
            }
        }
        return out;
    }
}
