package io.shardgate.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/** The two JDBC drivers every integration test talks through: MySQL Connector/J and MariaDB Connector/J. */
public enum Driver {
    MYSQL("jdbc:mysql"),
    MARIADB("jdbc:mariadb");

    private final String scheme;

    Driver(String scheme) {
        this.scheme = scheme;
    }

    /** A connection to {@code 127.0.0.1:port/database}; {@code properties} are driver options. */
    public Connection connect(int port, String database, String user, String password, Map<String, String> properties)
            throws SQLException {
        Properties info = new Properties();
        info.putAll(properties);
        info.setProperty("user", user);
        info.setProperty("password", password);
        return DriverManager.getConnection(url(port, database), info);
    }

    public Connection connect(int port, String database, String user, String password) throws SQLException {
        return connect(port, database, user, password, Map.of());
    }

    public String url(int port, String database) {
        return scheme + "://127.0.0.1:" + port + "/" + (database == null ? "" : database);
    }
}
