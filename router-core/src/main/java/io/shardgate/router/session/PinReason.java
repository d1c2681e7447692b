package io.shardgate.router.session;

/**
 * Why a client session keeps its backend connection instead of returning it to the pool: state
 * that lives in that one server session and cannot be replayed on another connection.
 */
public enum PinReason {
    TRANSACTION("open transaction"),
    AUTOCOMMIT_OFF("autocommit=0"),
    USER_VARIABLE("user variable used"),
    LOCK_TABLES("LOCK TABLES"),
    NAMED_LOCK("GET_LOCK()"),
    TEMPORARY_TABLE("temporary table"),
    FOUND_ROWS("SQL_CALC_FOUND_ROWS/FOUND_ROWS()"),
    SQL_PREPARE("PREPARE ... FROM"),
    LONG_DATA("COM_STMT_SEND_LONG_DATA before its COM_STMT_EXECUTE"),
    UNTRACKED_SET("SET that cannot be replayed"),
    VERSIONED_COMMENT("/*M! ... */ MariaDB executable comment"),
    HANDLER("HANDLER statement"),
    XA("XA transaction"),
    XA_BRANCH("branch of a two_phase transaction (XA START .. XA COMMIT)"),
    LAST_INSERT_ID("LAST_INSERT_ID() after an insert"),
    DIAGNOSTICS("warnings or error of the last statement"),
    MULTIPLEXING_OFF("multiplexing disabled for the hostgroup"),
    QUERY_RULE("a query rule disabled multiplexing");

    private final String description;

    PinReason(String description) {
        this.description = description;
    }

    /** What an operator reads in the admin interface. */
    public String description() {
        return description;
    }
}
