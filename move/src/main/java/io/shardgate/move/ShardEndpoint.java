package io.shardgate.move;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Where the mover reaches one shard's writer and with which account (the hostgroup's backend
 * account: it needs SELECT, INSERT, DELETE, LOCK TABLES on the moving tables and REPLICATION SLAVE
 * and REPLICATION CLIENT to follow the binary log).
 */
public record ShardEndpoint(String host, int port, String user, String password) {
    /** A new JDBC connection (MariaDB Connector/J, text protocol). */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "10000");
        return DriverManager.getConnection("jdbc:mariadb://" + host + ":" + port + "/", p);
    }

    @Override
    public String toString() {
        return user + "@" + host + ":" + port; // never the password
    }
}
