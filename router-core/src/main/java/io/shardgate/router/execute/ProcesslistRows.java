package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.session.ProcesslistQuery;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The router's sessions as MySQL's process list shows threads: Id (the session id clients got in
 * their handshake), User, Host, db, Command, Time, State, Info (truncated to 100 characters unless
 * FULL or the information_schema table). A user without {@code connection_admin} sees only the
 * sessions of its own name, as MySQL shows only a user's own threads without PROCESS.
 */
final class ProcesslistRows {
    /** SHOW PROCESSLIST cuts Info here (MySQL's PROCESS_LIST_WIDTH). */
    static final int INFO_WIDTH = 100;

    private static final List<String> SHOW_NAMES =
            List.of("Id", "User", "Host", "db", "Command", "Time", "State", "Info");

    private ProcesslistRows() {}

    /** The result set's columns for {@code query}. */
    static List<TextResultSet.Column> columns(ProcesslistQuery query) {
        List<TextResultSet.Column> out = new ArrayList<>(query.columns().size());
        for (ProcesslistQuery.Count count : query.counts()) {
            out.add(
                    count.operator() == null
                            ? TextResultSet.Column.count(count.name())
                            : TextResultSet.Column.truth(count.name()));
        }
        for (String column : query.columns()) {
            String name = query.show() ? SHOW_NAMES.get(ProcesslistQuery.COLUMNS.indexOf(column)) : column;
            out.add(
                    ProcesslistQuery.NUMERIC.contains(column)
                            ? TextResultSet.Column.integer(name)
                            : TextResultSet.Column.text(name));
        }
        return out;
    }

    /** The sessions {@code user} may see (all of them with {@code connectionAdmin}). */
    static List<SessionInfo> visible(List<SessionInfo> sessions, String user, boolean connectionAdmin) {
        return connectionAdmin
                ? sessions
                : sessions.stream().filter(s -> s.user().equals(user)).toList();
    }

    /**
     * The rows of {@code sessions} (those the user may see), filtered and ordered as {@code query}
     * asks; {@code states} holds, by session id, the STATE of the server thread running a session's
     * statement (see {@link BackendStates}), the others show the router's own.
     */
    static List<List<Object>> rows(ProcesslistQuery query, List<SessionInfo> sessions, Map<Integer, String> states) {
        List<List<Object>> full = new ArrayList<>();
        for (SessionInfo s : sessions) {
            List<Object> row = row(s, query.full(), states.get(s.connectionId()));
            if (matches(row, query.where())) {
                full.add(row);
            }
        }
        int sortBy = ProcesslistQuery.COLUMNS.indexOf(query.orderBy() == null ? "ID" : query.orderBy());
        Comparator<List<Object>> order = Comparator.comparing(r -> r.get(sortBy), ProcesslistRows::compare);
        full.sort(query.descending() ? order.reversed() : order);
        if (!query.counts().isEmpty()) {
            List<Object> counted = new ArrayList<>(query.counts().size());
            for (ProcesslistQuery.Count count : query.counts()) {
                counted.add(count.value(full.size()));
            }
            return List.of(counted);
        }
        List<List<Object>> out = new ArrayList<>(full.size());
        for (List<Object> row : full) {
            List<Object> picked = new ArrayList<>(query.columns().size());
            for (String column : query.columns()) {
                picked.add(row.get(ProcesslistQuery.COLUMNS.indexOf(column)));
            }
            out.add(picked);
        }
        return out;
    }

    /**
     * A session as the eight columns of {@link ProcesslistQuery#COLUMNS}; {@code backendState}, when
     * not null, is the STATE of the server thread running its statement.
     */
    static List<Object> row(SessionInfo s, boolean full, String backendState) {
        String info = s.info();
        if (info != null && !full && info.length() > INFO_WIDTH) {
            info = info.substring(0, INFO_WIDTH);
        }
        List<Object> row = new ArrayList<>(8);
        row.add((long) s.connectionId());
        row.add(s.user());
        row.add(host(s.client()));
        row.add(s.schema());
        row.add(s.command());
        row.add(s.seconds());
        row.add(backendState != null ? backendState : s.command().equals("Sleep") ? "" : "executing");
        row.add(info);
        return row;
    }

    /** {@code host:port} of a socket address's text ("/127.0.0.1:5000" or "name/127.0.0.1:5000"). */
    static String host(String client) {
        int slash = client.indexOf('/');
        return slash < 0 ? client : client.substring(slash + 1);
    }

    private static boolean matches(List<Object> row, List<ProcesslistQuery.Term> where) {
        for (ProcesslistQuery.Term term : where) {
            Object value = row.get(ProcesslistQuery.COLUMNS.indexOf(term.column()));
            // NULL compares to nothing; text compares as information_schema's utf8 general_ci does
            // for ASCII (case-insensitively)
            boolean equal = value instanceof String s
                    ? s.equalsIgnoreCase((String) term.value())
                    : value != null && value.equals(term.value());
            if (value == null || equal != term.equal()) {
                return false;
            }
        }
        return true;
    }

    private static int compare(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1; // NULL first, as MySQL sorts ascending
        }
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        return compareUpper(a.toString(), b.toString());
    }

    /** utf8 general_ci's order for ASCII text: by upper-case letters ('A' before '_' before 'b'). */
    static int compareUpper(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            int d = Character.toUpperCase(a.charAt(i)) - Character.toUpperCase(b.charAt(i));
            if (d != 0) {
                return d;
            }
        }
        return a.length() - b.length();
    }
}
