package io.shardgate.protocol.type;

/**
 * Capability flags of the MySQL client/server protocol (Protocol::CapabilityFlags), exchanged in
 * Protocol::HandshakeV10 and Protocol::HandshakeResponse41; a connection uses the intersection.
 */
public final class CapabilityFlags {
    /** Old "use the improved version of old password authentication"; MariaDB calls it CLIENT_MYSQL. */
    public static final int CLIENT_LONG_PASSWORD = 1;
    /** Affected rows in OK_Packet count found (matched) rows instead of changed rows. */
    public static final int CLIENT_FOUND_ROWS = 1 << 1;
    /** Get all column flags. */
    public static final int CLIENT_LONG_FLAG = 1 << 2;
    /** A database (schema) name may be given in the handshake response. */
    public static final int CLIENT_CONNECT_WITH_DB = 1 << 3;
    /** Do not permit database.table.column. */
    public static final int CLIENT_NO_SCHEMA = 1 << 4;
    /** Compression protocol supported. */
    public static final int CLIENT_COMPRESS = 1 << 5;
    /** Special handling of ODBC behaviour; unused since 3.22. */
    public static final int CLIENT_ODBC = 1 << 6;
    /** LOAD DATA LOCAL may be used. */
    public static final int CLIENT_LOCAL_FILES = 1 << 7;
    /** The parser ignores spaces before '('. */
    public static final int CLIENT_IGNORE_SPACE = 1 << 8;
    /** New 4.1 protocol: OK_Packet with status and warnings, 4.1 column definitions. */
    public static final int CLIENT_PROTOCOL_41 = 1 << 9;
    /** wait_timeout is replaced by interactive_timeout. */
    public static final int CLIENT_INTERACTIVE = 1 << 10;
    /** Switch to TLS after the SSL request packet. */
    public static final int CLIENT_SSL = 1 << 11;
    /** Do not issue SIGPIPE on network failures (libmysqlclient only). */
    public static final int CLIENT_IGNORE_SIGPIPE = 1 << 12;
    /** The client knows about transactions; OK_Packet carries status flags. */
    public static final int CLIENT_TRANSACTIONS = 1 << 13;
    /** Old flag for the 4.1 protocol; unused. */
    public static final int CLIENT_RESERVED = 1 << 14;
    /** 4.1 authentication with a length-prefixed auth response (same bit as CLIENT_RESERVED2). */
    public static final int CLIENT_SECURE_CONNECTION = 1 << 15;
    /** Deprecated name of {@link #CLIENT_SECURE_CONNECTION}. */
    public static final int CLIENT_RESERVED2 = CLIENT_SECURE_CONNECTION;
    /** Several statements per COM_QUERY, separated by ';'. */
    public static final int CLIENT_MULTI_STATEMENTS = 1 << 16;
    /** Multiple result sets from COM_QUERY. */
    public static final int CLIENT_MULTI_RESULTS = 1 << 17;
    /** Multiple result sets from COM_STMT_EXECUTE. */
    public static final int CLIENT_PS_MULTI_RESULTS = 1 << 18;
    /** Pluggable authentication: the handshake names the auth plugin. */
    public static final int CLIENT_PLUGIN_AUTH = 1 << 19;
    /** Connection attributes in the handshake response. */
    public static final int CLIENT_CONNECT_ATTRS = 1 << 20;
    /** The auth response is a length-encoded string (longer than 255 bytes allowed). */
    public static final int CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21;
    /** The client can handle expired passwords (sandbox mode). */
    public static final int CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 1 << 22;
    /** The server may send session state change information in OK_Packet. */
    public static final int CLIENT_SESSION_TRACK = 1 << 23;
    /** The client expects OK_Packet (header 0xFE) instead of EOF_Packet. */
    public static final int CLIENT_DEPRECATE_EOF = 1 << 24;
    /** The client can handle result sets without metadata (MySQL 8.0). */
    public static final int CLIENT_OPTIONAL_RESULTSET_METADATA = 1 << 25;
    /** zstd compression with a negotiated level (MySQL 8.0). */
    public static final int CLIENT_ZSTD_COMPRESSION_ALGORITHM = 1 << 26;
    /** COM_QUERY and COM_STMT_EXECUTE carry query attributes (MySQL 8.0.23). */
    public static final int CLIENT_QUERY_ATTRIBUTES = 1 << 27;
    /** Multi-factor authentication (MySQL 8.0.27). */
    public static final int MULTI_FACTOR_AUTHENTICATION = 1 << 28;
    /** Reserved to extend the 32-bit capability field. */
    public static final int CLIENT_CAPABILITY_EXTENSION = 1 << 29;
    /** Verify the server certificate (client-side only). */
    public static final int CLIENT_SSL_VERIFY_SERVER_CERT = 1 << 30;
    /** Do not reset options after a failed connect (client-side only). */
    public static final int CLIENT_REMEMBER_OPTIONS = 1 << 31;

    /** MariaDB extended capability (upper 32 bits, sent in reserved bytes): progress reports. */
    public static final int MARIADB_CLIENT_PROGRESS = 1;
    /** MariaDB extended capability: COM_MULTI (removed in 10.6). */
    public static final int MARIADB_CLIENT_COM_MULTI = 1 << 1;
    /** MariaDB extended capability: COM_STMT_BULK_EXECUTE. */
    public static final int MARIADB_CLIENT_STMT_BULK_OPERATIONS = 1 << 2;
    /** MariaDB extended capability: extended type info in column definitions. */
    public static final int MARIADB_CLIENT_EXTENDED_TYPE_INFO = 1 << 3;
    /** MariaDB extended capability: metadata caching for prepared statements. */
    public static final int MARIADB_CLIENT_CACHE_METADATA = 1 << 4;

    private CapabilityFlags() {}
}
