package io.shardgate.router.execute;

import io.shardgate.sharding.digest.Mark;
import java.util.HashMap;
import java.util.Map;

/**
 * A client session's server-side prepared statements under multiplexing: the statement ids the
 * client holds are the router's, each naming SQL text that is prepared lazily on whichever
 * backend connection runs it (each {@code PooledConnection} caches its own backend ids).
 */
final class PreparedStatements {
    /** What the router needs to run a statement on any connection. */
    static final class Prepared {
        final String sql;
        final int parameters;
        /** Where it runs: its plan, re-applied to each execution's values. */
        final PreparedRoute route;
        /** Parameter types (type, flags per parameter) of the last COM_STMT_EXECUTE that sent them. */
        byte[] types;
        /** Hostgroup of the last execution (a cursor fetches there), or -1. */
        int lastHostgroup = -1;
        /** Hostgroup holding COM_STMT_SEND_LONG_DATA for the next execution, or -1. */
        int longDataHostgroup = -1;

        /** It calls FOUND_ROWS() or ROW_COUNT(): see {@link PreviousStatementCheck}. */
        final boolean readsPreviousStatement;

        Prepared(String sql, int parameters, PreparedRoute route) {
            this.sql = sql;
            this.parameters = parameters;
            this.route = route;
            this.readsPreviousStatement =
                    route.digest().has(Mark.FOUND_ROWS) || route.digest().has(Mark.ROW_COUNT);
        }

        /** The hostgroup a command that is not an execution goes to. */
        int hostgroup() {
            return lastHostgroup >= 0 ? lastHostgroup : route.prepareHostgroup();
        }
    }

    /** MariaDB's "the statement prepared last" id, used by pipelining clients. */
    static final int LAST_PREPARED = -1;

    private final Map<Integer, Prepared> byId = new HashMap<>();
    private int nextId = 1;
    private int lastId = 0;

    /** Registers a statement the backend just prepared; returns the id the client gets. */
    int add(String sql, int parameters, PreparedRoute route) {
        int id = nextId++;
        byId.put(id, new Prepared(sql, parameters, route));
        lastId = id;
        return id;
    }

    /** The statement the client means by {@code id}, or null. */
    Prepared get(int id) {
        return byId.get(id == LAST_PREPARED ? lastId : id);
    }

    void remove(int id) {
        byId.remove(id == LAST_PREPARED ? lastId : id);
    }

    /** COM_RESET_CONNECTION / COM_CHANGE_USER: the session's statements are gone. */
    void clear() {
        byId.clear();
    }
}
