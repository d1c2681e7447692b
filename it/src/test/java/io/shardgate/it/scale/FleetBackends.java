package io.shardgate.it.scale;

import io.shardgate.it.Driver;
import io.shardgate.it.server.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** The backend side of the fleet benchmark: the load's tables and the servers' connection counts. */
final class FleetBackends {
    private FleetBackends() {}

    /** Creates tables 1 and 2 (hostgroups 1 and 2) with one row on the servers behind them. */
    static void createLoadTables(FleetConfig fleet, List<MariaDbServer> servers) throws SQLException {
        for (int t = 1; t <= 2; t++) {
            MariaDbServer server = serverOf(fleet, servers, fleet.hostgroupOf(t));
            try (Connection c = connect(server);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + FleetConfig.table(t) + " (id INT PRIMARY KEY, c VARCHAR(20))");
                s.execute("INSERT INTO " + FleetConfig.table(t) + " VALUES (1, 'row')");
            }
        }
    }

    static MariaDbServer serverOf(FleetConfig fleet, List<MariaDbServer> servers, int hostgroup) {
        String address = fleet.serverOf(hostgroup);
        return servers.stream()
                .filter(s -> s.address().equals(address))
                .findFirst()
                .orElseThrow();
    }

    static Connection connect(MariaDbServer server) throws SQLException {
        return Driver.MARIADB.connect(
                server.port(), FleetConfig.SCHEMA, FleetConfig.BACKEND_USER, FleetConfig.BACKEND_PASSWORD);
    }

    /** Sessions of the router's backend account on the server now (its process list; ours excluded). */
    static int routerSessions(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST" + " WHERE USER = '"
                        + FleetConfig.BACKEND_USER + "' AND ID <> CONNECTION_ID()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The router account's sessions on the server grouped by command, state and database, for the report. */
    static String routerSessionKinds(Connection c) throws SQLException {
        StringBuilder kinds = new StringBuilder();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COMMAND, STATE, DB, COUNT(*) FROM information_schema.PROCESSLIST"
                        + " WHERE USER = '" + FleetConfig.BACKEND_USER + "' AND ID <> CONNECTION_ID()"
                        + " GROUP BY COMMAND, STATE, DB ORDER BY 4 DESC")) {
            while (rs.next()) {
                kinds.append(kinds.length() == 0 ? "" : ", ")
                        .append(rs.getString(1))
                        .append('/')
                        .append(rs.getString(2))
                        .append('/')
                        .append(rs.getString(3))
                        .append(": ")
                        .append(rs.getInt(4));
            }
        }
        return kinds.toString();
    }

    /** The server's Threads_connected (every client connection, ours included). */
    static int threadsConnected(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Threads_connected'")) {
            rs.next();
            return rs.getInt(2);
        }
    }

    /** The server's Connections status: connection attempts since it started. */
    static long connectionAttempts(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Connections'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    static int maxConnections(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@max_connections")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
