package io.shardgate.router.adminsql;

/** An admin statement that cannot run: the MySQL error code and message the client gets. */
final class AdminSqlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;

    AdminSqlException(int code, String message) {
        super(message);
        this.code = code;
    }

    int code() {
        return code;
    }
}
