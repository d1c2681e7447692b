package io.shardgate.it.differential;

import io.shardgate.it.differential.AnswerComparison.Difference;
import io.shardgate.it.differential.DifferentialSchema.Table;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The differential loop: draws statements from a seed, runs each on the router and on the oracle
 * over the same kind of connection (MySQL Connector/J text or server-side prepared, MariaDB
 * Connector/J text), compares the answers, after every write compares the written tables' contents
 * and placement, and records every difference with a reproducer (shrunk for the first of its class).
 * A router ERROR 1235 where MySQL answers is a refusal: counted, not a difference.
 *
 * <p>State: the rows start as {@link DifferentialSchema#rows()}; writes change them on both sides;
 * every {@link #ROUND} statements, and after any write that differs, both are reset to the initial
 * rows, so a reproducer is "the fixed setup, then these writes since the reset, then this statement".
 */
final class DifferentialRun implements AutoCloseable {
    static final int ROUND = 60;
    private static final int SHRINK_ATTEMPTS = 40;

    private final DifferentialCluster cluster;
    private final long seed;
    private final Tally tally;
    private final Map<Table, List<List<Object>>> rows = DifferentialSchema.rows();
    private final TableCheck tables;
    /** [driver][prepared ? 1 : 0]: MySQL Connector/J, MariaDB Connector/J, MySQL Connector/J as a latin1 client; prepared only with the first. */
    private final Connection[][] router = new Connection[3][2];

    private final Connection[][] oracle = new Connection[3][2];
    private Connection weights;
    private AnswerComparison comparison;
    private final List<String> sinceReset = new ArrayList<>();
    private boolean dirty;
    /** Whether the statement being executed found a class of difference not seen before. */
    private boolean newClass;

    DifferentialRun(DifferentialCluster cluster, long seed, Tally tally) throws SQLException {
        this.cluster = cluster;
        this.seed = seed;
        this.tally = tally;
        this.tables = new TableCheck(cluster);
        connect();
    }

    private void connect() throws SQLException {
        for (int d = 0; d < 3; d++) {
            for (int p = 0; p < (d == 0 ? 2 : 1); p++) {
                router[d][p] = cluster.viaRouter(d, p == 1);
                oracle[d][p] = cluster.toOracle(d, p == 1);
            }
        }
        weights = cluster.toOracle(1, false);
        comparison = new AnswerComparison(weights);
    }

    private void reconnect() throws SQLException {
        close();
        connect();
    }

    /** Loads the rows through the router and checks where they landed, then resets them directly. */
    void load() throws SQLException, IOException {
        cluster.createTables();
        for (String problem : cluster.loadThroughRouter(rows)) {
            tally.difference("load / insert", "initial load through the router: " + problem);
        }
        for (Table t : DifferentialSchema.TABLES) {
            for (Difference d : tables.check(t)) {
                tally.difference("load / " + d.kind(), "after the initial load through the router: " + d.detail());
            }
        }
        reset();
    }

    private long resetNanos;
    private long checkNanos;
    private int resets;

    private void reset() throws SQLException {
        long t0 = System.nanoTime();
        resets++;
        cluster.reset(rows);
        resetNanos += System.nanoTime() - t0;
        sinceReset.clear();
        dirty = false;
    }

    /** Runs {@code count} generated statements, or fewer when {@code minutes} (when positive) have passed. */
    void run(long count, long minutes) throws SQLException, IOException {
        StatementGenerator gen = new StatementGenerator(seed);
        long started = System.currentTimeMillis();
        long deadline = minutes > 0 ? started + minutes * 60_000 : Long.MAX_VALUE;
        long i = 0;
        for (; i < count && System.currentTimeMillis() < deadline; i++) {
            if (i % ROUND == 0 && dirty) {
                reset();
            }
            GeneratedStatement st = gen.next(true);
            boolean prepared = gen.prepared() && !st.session();
            int driver = gen.driver();
            if (prepared || st.session()) {
                driver = 0;
            }
            execute(i, st, driver, prepared);
            if (i > 0 && i % 5000 == 0) {
                tally.writeSummary(seed, System.currentTimeMillis() - started);
                System.out.printf("differential: %d statements, %d difference classes%n", i, tally.differences.size());
            }
        }
        tally.writeSummary(seed, System.currentTimeMillis() - started);
        System.out.printf(
                "differential: %d statements in %d ms, %d resets %d ms, table checks %d ms%n",
                i, System.currentTimeMillis() - started, resets, resetNanos / 1_000_000, checkNanos / 1_000_000);
    }

    private void execute(long index, GeneratedStatement st, int driver, boolean prepared)
            throws SQLException, IOException {
        newClass = false;
        Connection rc = router[driver][prepared ? 1 : 0];
        Connection oc = oracle[driver][prepared ? 1 : 0];
        List<String> session = new ArrayList<>();
        Set<String> written = new LinkedHashSet<>(st.writes());
        Verdict verdict = Verdict.SAME;
        for (GeneratedStatement b : st.before()) {
            Answer want = Answer.run(oc, b, false, false);
            Answer got = Answer.run(rc, b, false, false);
            written.addAll(b.writes());
            verdict = judge(index, b, got, want, driver, false, session);
            if (verdict != Verdict.SAME) {
                break;
            }
            session.add(b.literal());
        }
        Answer got = null;
        Answer want = null;
        if (verdict == Verdict.SAME) {
            want = Answer.run(oc, st, prepared, true);
            got = Answer.run(rc, st, prepared, true);
            verdict = judge(index, st, got, want, driver, prepared, session);
        }
        for (String a : st.after()) {
            Answer.run(oc, a);
            Answer.run(rc, a);
        }
        if (written.isEmpty()) {
            return;
        }
        dirty = true;
        if (verdict == Verdict.REFUSED) {
            reset(); // the oracle ran a write the router refused: the states part, through no fault
            return;
        }
        boolean differed = verdict == Verdict.DIFFERENT;
        for (String name : written) {
            long t0 = System.nanoTime();
            List<Difference> checked = tables.check(table(name));
            checkNanos += System.nanoTime() - t0;
            for (Difference d : checked) {
                differed = true;
                newClass |= tally.difference(
                        st.shape() + " / " + d.kind(), reproducer(index, st, driver, prepared, session, got, want, d));
            }
        }
        if (differed) {
            boolean afterOtherWrites = !sinceReset.isEmpty();
            reset();
            if (newClass && afterOtherWrites) {
                recheckOnInitialRows(index, st, driver, prepared);
            }
        } else {
            session.forEach(s -> sinceReset.add(s + ";"));
            sinceReset.add(st.literal() + ";");
        }
    }

    /**
     * Runs a write that differed after other writes once more on the initial rows; when it still
     * differs, its reproducer without the earlier writes is kept as the class's shrunk one.
     */
    private void recheckOnInitialRows(long index, GeneratedStatement st, int driver, boolean prepared)
            throws SQLException, IOException {
        Connection rc = router[driver][prepared ? 1 : 0];
        Connection oc = oracle[driver][prepared ? 1 : 0];
        List<String> session = new ArrayList<>();
        Set<String> written = new LinkedHashSet<>(st.writes());
        for (GeneratedStatement b : st.before()) {
            Answer.run(oc, b, false, false);
            Answer.run(rc, b, false, false);
            written.addAll(b.writes());
            session.add(b.literal());
        }
        Answer want = Answer.run(oc, st, prepared, true);
        Answer got = Answer.run(rc, st, prepared, true);
        for (String a : st.after()) {
            Answer.run(oc, a);
            Answer.run(rc, a);
        }
        List<Difference> found = new ArrayList<>();
        Difference d = got.refusal() ? null : comparison.compare(st, got, want);
        if (d != null) {
            found.add(d);
        }
        for (String name : written) {
            found.addAll(tables.check(table(name)));
        }
        if (got.lost()) {
            reconnect();
        }
        for (Difference f : found) {
            tally.shrunk(
                    st.shape() + " / " + f.kind(),
                    "statement #" + index + " run again on the initial rows alone:\n"
                            + reproducer(index, st, driver, prepared, session, got, want, f));
        }
        dirty = true;
        reset();
    }

    /** How a statement's answers compared. */
    private enum Verdict {
        SAME,
        REFUSED,
        DIFFERENT
    }

    private static Table table(String name) {
        return DifferentialSchema.TABLES.stream()
                .filter(t -> t.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /** Counts the statement, compares, records a difference. */
    private Verdict judge(
            long index,
            GeneratedStatement st,
            Answer got,
            Answer want,
            int driver,
            boolean prepared,
            List<String> session)
            throws SQLException, IOException {
        tally.executed(st.shape(), prepared);
        if (want.failed()) {
            tally.oracleError(st.shape());
        }
        if (got.refusal() && !(want.failed() && want.errorCode() == Answer.NOT_SUPPORTED_YET)) {
            tally.refused(st.shape(), got.error());
            return Verdict.REFUSED;
        }
        Difference d = comparison.compare(st, got, want);
        if (d == null) {
            return Verdict.SAME;
        }
        if (got.lost()) {
            reconnect();
        }
        String cls = st.shape() + " / " + d.kind();
        String text = reproducer(index, st, driver, prepared, session, got, want, d);
        boolean first = tally.difference(cls, text);
        newClass |= first;
        if (first && st.spec() != null && !st.isWrite() && session.isEmpty() && !got.lost()) {
            String shrunk = shrink(index, st, d, driver, prepared);
            if (shrunk != null) {
                tally.shrunk(cls, shrunk);
            }
        }
        return Verdict.DIFFERENT;
    }

    /** Drops parts of a differing SELECT while the difference (of the same kind) stays; null when nothing went. */
    private String shrink(long index, GeneratedStatement st, Difference d, int driver, boolean prepared)
            throws SQLException {
        SelectSpec spec = st.spec();
        Answer lastGot = null;
        Answer lastWant = null;
        Difference lastDiff = null;
        int attempts = 0;
        boolean progress = true;
        while (progress && attempts < SHRINK_ATTEMPTS) {
            progress = false;
            for (SelectSpec smaller : spec.shrinkings()) {
                if (++attempts > SHRINK_ATTEMPTS) {
                    break;
                }
                GeneratedStatement candidate = smaller.render();
                Answer want = Answer.run(oracle[driver][prepared ? 1 : 0], candidate, prepared, true);
                Answer got = Answer.run(router[driver][prepared ? 1 : 0], candidate, prepared, true);
                if (got.lost()) {
                    reconnect();
                }
                if (got.refusal() || want.failed() && !got.failed()) {
                    continue;
                }
                Difference cd = comparison.compare(candidate, got, want);
                if (cd != null && cd.kind().equals(d.kind())) {
                    spec = smaller;
                    lastGot = got;
                    lastWant = want;
                    lastDiff = cd;
                    progress = true;
                    break;
                }
            }
        }
        return lastDiff == null
                ? null
                : "shrunk from statement #" + index + " (" + st.literal() + ")\n"
                        + reproducer(index, spec.render(), driver, prepared, List.of(), lastGot, lastWant, lastDiff);
    }

    private String reproducer(
            long index,
            GeneratedStatement st,
            int driver,
            boolean prepared,
            List<String> session,
            Answer got,
            Answer want,
            Difference d) {
        return Reproducer.text(seed, index, st, driver, prepared, sinceReset, session, got, want, d);
    }

    @Override
    public void close() {
        for (Connection[][] set : List.of(router, oracle)) {
            for (Connection[] byDriver : set) {
                for (Connection c : byDriver) {
                    closeQuietly(c);
                }
            }
        }
        closeQuietly(weights);
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // a lost connection closes with an error; nothing to keep
        }
    }
}
