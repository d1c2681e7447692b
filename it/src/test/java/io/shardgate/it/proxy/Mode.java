package io.shardgate.it.proxy;

import java.util.Map;

/** How a driver sends a {@code PreparedStatement}: as text (COM_QUERY) or server-side (COM_STMT_*). */
public enum Mode {
    /** Parameters interpolated by the driver; results in the text protocol. */
    TEXT,
    /** COM_STMT_PREPARE / COM_STMT_EXECUTE; results in the binary protocol. */
    SERVER_PREPARED;

    /** Driver options selecting this mode; both drivers name the option {@code useServerPrepStmts}. */
    public Map<String, String> properties() {
        return Map.of("useServerPrepStmts", Boolean.toString(this == SERVER_PREPARED));
    }
}
