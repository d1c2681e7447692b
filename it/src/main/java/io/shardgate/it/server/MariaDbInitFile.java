package io.shardgate.it.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The statements a {@link MariaDbServer} runs through {@code --init-file} at every start: the root
 * password, the database and the application user (mysql_native_password). Idempotent, so a named
 * data directory can be started again with the same or new passwords.
 */
final class MariaDbInitFile {

    private MariaDbInitFile() {}

    /** {@code database}, {@code user} and {@code password} may be null. */
    static String sql(String rootPassword, String database, String user, String password) {
        List<String> statements = new ArrayList<>();
        String root = nativePassword(rootPassword);
        // mariadb-install-db creates root for localhost, 127.0.0.1 and ::1; give them all the password
        for (String host : List.of("localhost", "127.0.0.1", "::1")) {
            statements.add("ALTER USER IF EXISTS 'root'@" + literal(host) + " " + root);
        }
        statements.add("CREATE USER IF NOT EXISTS 'root'@'%' " + root);
        statements.add("ALTER USER 'root'@'%' " + root);
        statements.add("GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION");
        if (database != null) {
            statements.add("CREATE DATABASE IF NOT EXISTS " + identifier(database));
        }
        if (user != null) {
            String account = literal(user) + "@'%'";
            statements.add("CREATE USER IF NOT EXISTS " + account + " " + nativePassword(password));
            statements.add("ALTER USER " + account + " " + nativePassword(password));
            statements.add("GRANT ALL PRIVILEGES ON *.* TO " + account);
        }
        // the server reads an init file statement by statement, one per line
        return String.join(";\n", statements) + ";\n";
    }

    private static String nativePassword(String password) {
        return "IDENTIFIED VIA mysql_native_password USING PASSWORD(" + literal(password) + ")";
    }

    private static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    private static String identifier(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
