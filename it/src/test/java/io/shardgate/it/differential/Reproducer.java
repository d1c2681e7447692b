package io.shardgate.it.differential;

import io.shardgate.it.differential.AnswerComparison.Difference;
import java.util.List;

/**
 * A difference written for a person: its class, seed and statement number, the client, the state
 * (the writes since the last reset), the session statements around it, the statement (and its
 * parameters when prepared), how it was compared, both answers, what differs, and the same
 * statements as a {@link DifferentialReplay} script.
 */
final class Reproducer {
    private Reproducer() {}

    static String via(int driver, boolean prepared) {
        return driver == 1
                ? "MariaDB Connector/J, text protocol"
                : driver == 2
                        ? "MySQL Connector/J, text protocol, characterEncoding=ISO-8859-1 (a latin1 client)"
                        : prepared
                                ? "MySQL Connector/J, server-side prepared (useServerPrepStmts=true)"
                                : "MySQL Connector/J, text protocol";
    }

    /** The reproducer of one difference, ending with its replay script. */
    static String text(
            long seed,
            long index,
            GeneratedStatement st,
            int driver,
            boolean prepared,
            List<String> sinceReset,
            List<String> session,
            Answer got,
            Answer want,
            Difference d) {
        StringBuilder out = new StringBuilder();
        out.append("class:      ")
                .append(st.shape())
                .append(" / ")
                .append(d.kind())
                .append('\n');
        out.append("seed:       ")
                .append(seed)
                .append(", statement #")
                .append(index)
                .append('\n');
        out.append("via:        ").append(via(driver, prepared)).append('\n');
        out.append("state:      the fixed schema and rows of DifferentialSchema");
        if (sinceReset.isEmpty()) {
            out.append('\n');
        } else {
            out.append(", then these writes (through the router and on the oracle):\n");
            sinceReset.forEach(w -> out.append("              ").append(w).append('\n'));
        }
        session.forEach(s -> out.append("before:     ").append(s).append(";\n"));
        out.append("statement:  ").append(st.literal()).append(";\n");
        if (prepared) {
            out.append("prepared:   ")
                    .append(st.sql().text())
                    .append("  params ")
                    .append(st.sql().params())
                    .append('\n');
        }
        if (!st.after().isEmpty()) {
            out.append("after:      ").append(String.join("; ", st.after())).append('\n');
        }
        out.append("compare:    ")
                .append(st.ordered() ? "in order" : "as multisets")
                .append(", columns ")
                .append(st.modes())
                .append('\n');
        if (got != null) {
            out.append("router:     ").append(got).append('\n');
            out.append("oracle:     ").append(want).append('\n');
        }
        out.append("difference: ")
                .append(d.kind())
                .append(": ")
                .append(d.detail())
                .append('\n');
        out.append(Tally.REPLAY).append('\n');
        out.append("-- reset\n");
        if (driver != 0) {
            out.append(driver == 1 ? "-- mariadb\n" : "-- latin1\n");
        }
        sinceReset.forEach(w -> out.append(w).append('\n'));
        session.forEach(s -> out.append(s).append(";\n"));
        out.append(st.literal()).append(";\n");
        st.after().forEach(a -> out.append(a).append(";\n"));
        return out.toString();
    }
}
