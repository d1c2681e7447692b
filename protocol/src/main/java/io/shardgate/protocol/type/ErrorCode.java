package io.shardgate.protocol.type;

import java.util.Locale;
import java.util.Objects;

/**
 * A server error as listed in MySQL's errmsg (error number, SQLSTATE, message) that an ERR_Packet
 * carries; the message template uses {@link String#format} placeholders.
 */
public record ErrorCode(int code, String sqlState, String messageTemplate) {
    public static final ErrorCode ER_CON_COUNT_ERROR = new ErrorCode(1040, "08004", "Too many connections");
    public static final ErrorCode ER_OUT_OF_RESOURCES = new ErrorCode(1041, "HY000", "Out of memory.");
    public static final ErrorCode ER_BAD_HOST_ERROR =
            new ErrorCode(1042, "08S01", "Can't get hostname for your address");
    public static final ErrorCode ER_HANDSHAKE_ERROR = new ErrorCode(1043, "08S01", "Bad handshake");
    public static final ErrorCode ER_DBACCESS_DENIED_ERROR =
            new ErrorCode(1044, "42000", "Access denied for user '%s'@'%s' to database '%s'");
    public static final ErrorCode ER_ACCESS_DENIED_ERROR =
            new ErrorCode(1045, "28000", "Access denied for user '%s'@'%s' (using password: %s)");
    public static final ErrorCode ER_NO_DB_ERROR = new ErrorCode(1046, "3D000", "No database selected");
    public static final ErrorCode ER_UNKNOWN_COM_ERROR = new ErrorCode(1047, "08S01", "Unknown command");
    public static final ErrorCode ER_BAD_DB_ERROR = new ErrorCode(1049, "42000", "Unknown database '%s'");
    public static final ErrorCode ER_SERVER_SHUTDOWN = new ErrorCode(1053, "08S01", "Server shutdown in progress");
    public static final ErrorCode ER_DUP_ENTRY = new ErrorCode(1062, "23000", "Duplicate entry '%s' for key '%s'");
    public static final ErrorCode ER_PARSE_ERROR = new ErrorCode(1064, "42000", "%s near '%s' at line %d");
    public static final ErrorCode ER_EMPTY_QUERY = new ErrorCode(1065, "42000", "Query was empty");
    public static final ErrorCode ER_NO_SUCH_THREAD = new ErrorCode(1094, "HY000", "Unknown thread id: %d");
    public static final ErrorCode ER_KILL_DENIED_ERROR = new ErrorCode(1095, "HY000", "You are not owner of thread %d");
    public static final ErrorCode ER_UNKNOWN_ERROR = new ErrorCode(1105, "HY000", "Unknown error");
    public static final ErrorCode ER_UNKNOWN_CHARACTER_SET =
            new ErrorCode(1115, "42000", "Unknown character set: '%s'");
    public static final ErrorCode ER_WRONG_VALUE_COUNT_ON_ROW =
            new ErrorCode(1136, "21S01", "Column count doesn't match value count at row %d");
    public static final ErrorCode ER_HOST_IS_BLOCKED = new ErrorCode(
            1129,
            "HY000",
            "Host '%s' is blocked because of many connection errors; unblock with 'mysqladmin flush-hosts'");
    public static final ErrorCode ER_NO_SUCH_TABLE = new ErrorCode(1146, "42S02", "Table '%s.%s' doesn't exist");
    public static final ErrorCode ER_NET_PACKET_TOO_LARGE =
            new ErrorCode(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes");
    public static final ErrorCode ER_NET_PACKETS_OUT_OF_ORDER =
            new ErrorCode(1156, "08S01", "Got packets out of order");
    public static final ErrorCode ER_NET_READ_ERROR =
            new ErrorCode(1158, "08S01", "Got an error reading communication packets");
    public static final ErrorCode ER_NET_READ_INTERRUPTED =
            new ErrorCode(1159, "08S01", "Got timeout reading communication packets");
    public static final ErrorCode ER_NET_ERROR_ON_WRITE =
            new ErrorCode(1160, "08S01", "Got an error writing communication packets");
    public static final ErrorCode ER_NET_WRITE_INTERRUPTED =
            new ErrorCode(1161, "08S01", "Got timeout writing communication packets");
    public static final ErrorCode ER_CANT_DO_THIS_DURING_AN_TRANSACTION =
            new ErrorCode(1179, "25000", "You are not allowed to execute this command in a transaction");
    public static final ErrorCode ER_UNKNOWN_SYSTEM_VARIABLE =
            new ErrorCode(1193, "HY000", "Unknown system variable '%s'");
    public static final ErrorCode ER_ERROR_DURING_COMMIT = new ErrorCode(1180, "HY000", "Got error %d during COMMIT");
    public static final ErrorCode ER_TOO_MANY_USER_CONNECTIONS =
            new ErrorCode(1203, "42000", "User %s already has more than 'max_user_connections' active connections");
    public static final ErrorCode ER_LOCK_WAIT_TIMEOUT =
            new ErrorCode(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction");
    public static final ErrorCode ER_BAD_FIELD_ERROR = new ErrorCode(1054, "42S22", "Unknown column '%s' in '%s'");
    public static final ErrorCode ER_WRONG_ARGUMENTS = new ErrorCode(1210, "HY000", "Incorrect arguments to %s");
    public static final ErrorCode ER_LOCK_DEADLOCK =
            new ErrorCode(1213, "40001", "Deadlock found when trying to get lock; try restarting transaction");
    public static final ErrorCode ER_USER_LIMIT_REACHED =
            new ErrorCode(1226, "42000", "User '%s' has exceeded the '%s' resource (current value: %d)");
    public static final ErrorCode ER_SPECIFIC_ACCESS_DENIED_ERROR = new ErrorCode(
            1227, "42000", "Access denied; you need (at least one of) the %s privilege(s) for this operation");
    public static final ErrorCode ER_NOT_SUPPORTED_YET =
            new ErrorCode(1235, "42000", "This version of MySQL doesn't yet support '%s'");
    public static final ErrorCode ER_UNKNOWN_STMT_HANDLER =
            new ErrorCode(1243, "HY000", "Unknown prepared statement handler (%s) given to %s");
    public static final ErrorCode ER_UNKNOWN_COLLATION = new ErrorCode(1273, "HY000", "Unknown collation: '%s'");
    public static final ErrorCode ER_OPTION_PREVENTS_STATEMENT = new ErrorCode(
            1290, "HY000", "The MySQL server is running with the %s option so it cannot execute this statement");
    public static final ErrorCode ER_QUERY_INTERRUPTED =
            new ErrorCode(1317, "70100", "Query execution was interrupted");
    public static final ErrorCode ER_XA_RBROLLBACK =
            new ErrorCode(1402, "XA100", "XA_RBROLLBACK: Transaction branch was rolled back");
    public static final ErrorCode ER_MAX_PREPARED_STMT_COUNT_REACHED = new ErrorCode(
            1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %d)");
    public static final ErrorCode ER_DATA_OUT_OF_RANGE =
            new ErrorCode(1690, "22003", "%s value is out of range in '%s'");
    public static final ErrorCode ER_ACCESS_DENIED_NO_PASSWORD_ERROR =
            new ErrorCode(1698, "28000", "Access denied for user '%s'@'%s'");
    public static final ErrorCode ER_MALFORMED_PACKET = new ErrorCode(1835, "HY000", "Malformed communication packet");
    public static final ErrorCode ER_MUST_CHANGE_PASSWORD_LOGIN = new ErrorCode(
            1862,
            "HY000",
            "Your password has expired. To log in you must change it using a client that supports expired passwords.");
    /** MariaDB's answer to a session that KILL CONNECTION ended while it was running a statement. */
    public static final ErrorCode ER_CONNECTION_KILLED = new ErrorCode(1927, "70100", "Connection was killed");
    /** A client-side code (CR_SSL_CONNECTION_ERROR): the router, as a backend's client, could not set up TLS. */
    public static final ErrorCode CR_SSL_CONNECTION_ERROR = new ErrorCode(2026, "HY000", "SSL connection error: %s");

    public static final ErrorCode ER_QUERY_TIMEOUT =
            new ErrorCode(3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded");

    public ErrorCode {
        Objects.requireNonNull(sqlState, "sqlState");
        Objects.requireNonNull(messageTemplate, "messageTemplate");
        if (sqlState.length() != 5) {
            throw new IllegalArgumentException("SQLSTATE must have 5 characters: " + sqlState);
        }
    }

    /** The message with {@code args} substituted; the template itself when there are no args. */
    public String format(Object... args) {
        return args.length == 0 ? messageTemplate : String.format(Locale.ROOT, messageTemplate, args);
    }
}
