package io.shardgate.cache;

/** How result rows are encoded: the same statement answers differently per protocol. */
public enum RowFormat {
    /** Text result set, the answer to COM_QUERY. */
    TEXT,
    /** Binary result set, the answer to COM_STMT_EXECUTE. */
    BINARY
}
