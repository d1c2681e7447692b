package io.shardgate.router.twophase;

import io.netty.channel.EventLoopGroup;
import io.shardgate.admin.http.TransactionControl;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.DirectStatement;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes two-phase transactions their router left prepared (it crashed, lost a shard or its
 * client mid-commit): at start and every {@code periodMillis}, {@code XA RECOVER} on each
 * hostgroup's writer and, on the same connection, a listing of that shard's decision rows ({@link
 * DecisionTable}); each Shardgate branch is matched with the row of its transaction on its metadata
 * manager (named in the xid) and acted on by {@link RecoveryAction}. A branch with no row is
 * fenced: a rollback row inserted on the manager decides it unless the manager's commit row got
 * there first. Rows whose branches are all gone are deleted in batches: commit rows listed by the
 * previous pass (so listed before this pass's scan: a row is committed only after every branch
 * prepared) none of whose branches this pass found, and rollback rows older than {@link
 * #ROLLBACK_RETENTION_SECONDS}.
 *
 * <p>Every router runs one; a Curator {@link LeaderLatch} lets one act at a time (the others only
 * list what is in doubt, for their admin view), so one resolver acts per transaction. A resolver
 * racing the transaction's owner is harmless: committing or rolling back a branch twice gets
 * XAER_NOTA the second time, and the decision row is inserted once (its primary key).
 *
 * <p>Threading: its own single thread; the shard statements run on the router's event loops and
 * are waited for here (never on an event loop).
 */
public final class Resolver implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Resolver.class);
    /** XAER_NOTA: the branch is not (or no longer) known to the server. */
    static final int XAER_NOTA = 1397;
    /** XA_RBROLLBACK: MariaDB's answer for a read-only branch, which it dropped at PREPARE. */
    static final int XA_RBROLLBACK = 1402;
    /**
     * Rollback rows stay this long: a manager whose transaction is still open (its router hung
     * mid-commit) must meet the row when it inserts its commit, however late.
     */
    static final long ROLLBACK_RETENTION_SECONDS = TimeUnit.HOURS.toSeconds(1);
    /** At most this many decision rows are listed per shard and pass. */
    static final int LIST_LIMIT = 10_000;
    /** At most this many rows per DELETE. */
    static final int DELETE_BATCH = 1_000;
    /** The fence's lock wait: an open manager transaction holding its commit row is waited for this long. */
    static final int FENCE_LOCK_WAIT_SECONDS = 2;

    private final RouterEpochs epochs;
    private final DecisionTable decisions;
    private final TwoPhaseMetrics metrics;
    private final Hostgroups hostgroups;
    private final BackendConnector connector;
    private final EventLoopGroup loops;
    private final CuratorFramework client;
    private final String root;
    private final long periodMillis;
    private final long graceMillis;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sg-xa-resolver");
        t.setDaemon(true);
        return t;
    });
    /** When each branch (gtrid/hostgroup) was first seen prepared by this resolver. */
    private final Map<String, Long> firstSeen = new ConcurrentHashMap<>();

    private volatile List<InDoubt> unresolved = List.of();
    /** Periods since this router's last pass while another router leads (resolver thread only). */
    private int followerPeriods;
    /** Commit rows the last full pass listed: gtrid to the hostgroup listed on (resolver thread only). */
    private Map<String, Integer> listedCommits = Map.of();

    /** A router that does not lead lists in-doubt branches once in this many periods. */
    static final int FOLLOWER_PERIODS = 15;

    private LeaderLatch latch;

    /** A prepared branch the last pass left as it was, and why. */
    public record InDoubt(
            String xid, int hostgroup, String decision, boolean ownerAlive, long preparedMillis, String state) {}

    /** A decision row as listed: its outcome, whether it is past retention, the hostgroup it was listed on. */
    private record Row(Outcome outcome, boolean old, int listedOn) {}

    public Resolver(
            RouterEpochs epochs,
            DecisionTable decisions,
            TwoPhaseMetrics metrics,
            Hostgroups hostgroups,
            BackendConnector connector,
            EventLoopGroup loops,
            CuratorFramework client,
            String root,
            long periodMillis,
            long graceMillis) {
        this.epochs = epochs;
        this.decisions = decisions;
        this.metrics = metrics;
        this.hostgroups = hostgroups;
        this.connector = connector;
        this.loops = loops;
        this.client = client;
        this.root = root;
        this.periodMillis = periodMillis;
        this.graceMillis = graceMillis;
    }

    /** Takes the xid epoch and runs the first pass now, then every period. */
    public void start() {
        thread.scheduleWithFixedDelay(this::scheduledPass, 0, periodMillis, TimeUnit.MILLISECONDS);
    }

    private void scheduledPass() {
        try {
            // a router that does not lead only lists what it sees (the admin views, the gauge): every
            // FOLLOWER_PERIODS periods, not every period, as each pass logs in to every hostgroup's
            // writer (a fleet of routers would multiply those logins; fleet-scale: 3,092/s for 20)
            if (!passesThisPeriod(latch == null || latch.hasLeadership())) {
                return;
            }
            pass(null, null);
        } catch (Exception | Error e) {
            log.warn("two-phase resolver pass failed: {}", e.toString());
        }
    }

    /**
     * Whether this period's pass runs: always while this router leads (or before it has asked),
     * else once in {@link #FOLLOWER_PERIODS} periods. Resolver thread only.
     */
    boolean passesThisPeriod(boolean leads) {
        if (leads || ++followerPeriods >= FOLLOWER_PERIODS) {
            followerPeriods = 0;
            return true;
        }
        return false;
    }

    /** The resolver as the HTTP endpoint reaches it ({@code /api/transactions}). */
    public TransactionControl control() {
        return new TransactionControl() {
            @Override
            public List<Map<String, Object>> inDoubt() {
                List<Map<String, Object>> out = new ArrayList<>();
                for (InDoubt d : unresolved) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("xid", d.xid());
                    row.put("hostgroup", d.hostgroup());
                    row.put("decision", d.decision());
                    row.put("owner_alive", d.ownerAlive());
                    row.put("prepared_ms", d.preparedMillis());
                    row.put("state", d.state());
                    out.add(row);
                }
                return out;
            }

            @Override
            public int resolve(String xid, String outcome) throws Exception {
                Outcome o = Outcome.named(outcome);
                if (o == null) {
                    throw new IllegalArgumentException("outcome must be commit or rollback, not '" + outcome + "'");
                }
                return Resolver.this.resolve(xid, o);
            }
        };
    }

    /** This router's xid epoch, or -1 while ZooKeeper has not handed it one. */
    public long epoch() {
        return epochs.epoch();
    }

    /** The prepared branches the last pass found and left, for the admin interface. */
    public List<InDoubt> unresolved() {
        return unresolved;
    }

    /**
     * Resolves transaction {@code gtrid} by hand: writes {@code outcome} as its decision row on its
     * metadata manager (refused when the other one is there already), then commits or rolls back
     * its branches on every shard. A commit forced on a transaction whose manager never committed
     * commits the other shards without the manager's writes: the operator's call. Blocks.
     *
     * @return how many branches were resolved
     */
    public int resolve(String gtrid, Outcome outcome) throws Exception {
        Xid xid = Xid.parse(gtrid);
        if (xid == null) {
            throw new IllegalArgumentException(
                    "'" + gtrid + "' is not a Shardgate transaction id (sg.<node>.<epoch>.<n>.<manager>)");
        }
        java.util.concurrent.Future<Integer> work = submit(() -> {
            Outcome written = writeDecision(xid, outcome);
            if (written != outcome) {
                throw new IllegalStateException("transaction " + gtrid + " is already decided: "
                        + (written == null ? "unknown (its metadata manager did not answer)" : written.text()));
            }
            return pass(xid, outcome);
        });
        try {
            return work.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IllegalStateException || e.getCause() instanceof IllegalArgumentException) {
                throw (RuntimeException) e.getCause(); // the caller's answer: refused, not failed
            }
            throw e;
        }
    }

    /** Runs a pass now on the resolver's thread and waits for it (tests, admin). */
    public int passNow() throws Exception {
        return submit(() -> pass(null, null)).get(60, TimeUnit.SECONDS);
    }

    private java.util.concurrent.Future<Integer> submit(java.util.concurrent.Callable<Integer> work) {
        return thread.submit(work);
    }

    /**
     * One pass (on the resolver's thread); {@code only} restricts it to one transaction, which is
     * acted on by {@code forced} whether or not this router leads. Returns the branches resolved.
     */
    private int pass(Xid only, Outcome forced) throws Exception {
        if (epochs.epoch() < 0) {
            epochs.start(5_000);
            log.info("two-phase commit: this router's xid epoch is {}", epochs.epoch());
        }
        boolean leader = only != null || leads();
        Map<String, Found> found = new LinkedHashMap<>();
        Map<String, Row> rows = new HashMap<>();
        boolean everyShardAnswered = true;
        for (Hostgroup hostgroup : hostgroups.all()) {
            List<DirectStatement.Answer> answers;
            try {
                answers = runEach(
                        hostgroup, List.of("XA RECOVER", decisions.list(ROLLBACK_RETENTION_SECONDS, LIST_LIMIT)));
            } catch (Exception e) {
                everyShardAnswered = false;
                log.debug("XA RECOVER on hostgroup {} failed: {}", hostgroup.id(), e.toString());
                continue;
            }
            DirectStatement.Answer recover = answers.get(0);
            DirectStatement.Answer listing = answers.get(1);
            if (recover.error() != null) {
                everyShardAnswered = false;
                log.warn(
                        "XA RECOVER on hostgroup {}: ERROR {} {}",
                        hostgroup.id(),
                        recover.error().code(),
                        recover.error().message());
                continue;
            }
            if (listing.error() == null) {
                for (List<String> row : listing.rows()) {
                    Outcome o = row.size() < 3 || row.get(1) == null ? null : Outcome.named(row.get(1));
                    if (o != null && row.get(0) != null) {
                        rows.put(row.get(0), new Row(o, "1".equals(row.get(2)), hostgroup.id()));
                    }
                }
            } else if (!DecisionTable.MISSING.contains(listing.error().code())) {
                everyShardAnswered = false; // its rows are not known: delete nothing this pass
                log.warn(
                        "listing {} on hostgroup {}: ERROR {} {}",
                        decisions.name(),
                        hostgroup.id(),
                        listing.error().code(),
                        listing.error().message());
            }
            for (List<String> row : recover.rows()) {
                Xid.Branch branch = branchOf(row);
                if (branch == null || (only != null && !branch.xid().equals(only))) {
                    continue;
                }
                String key = branch.xid().gtrid() + "/" + branch.hostgroup();
                // two hostgroups on one server both list its branches: prefer the branch's own
                Found known = found.get(key);
                if (known == null || hostgroup.id() == branch.hostgroup()) {
                    found.put(key, new Found(branch, hostgroup));
                }
            }
        }
        long now = System.currentTimeMillis();
        firstSeen.keySet().retainAll(found.keySet());
        Map<Long, Boolean> alive = new HashMap<>();
        Map<Xid, Fenced> fenced = new HashMap<>();
        List<InDoubt> left = new ArrayList<>();
        int resolved = 0;
        for (Map.Entry<String, Found> e : found.entrySet()) {
            Found f = e.getValue();
            Xid xid = f.branch().xid();
            long seen = firstSeen.computeIfAbsent(e.getKey(), k -> now);
            Row row = rows.get(xid.gtrid());
            Outcome decided = forced != null ? forced : row == null ? null : row.outcome();
            boolean ownerAlive = alive.computeIfAbsent(xid.epoch(), this::ownerAlive);
            RecoveryAction action = forced == Outcome.COMMIT
                    ? RecoveryAction.COMMIT
                    : forced == Outcome.ROLLBACK
                            ? RecoveryAction.ROLLBACK
                            : RecoveryAction.of(decided, ownerAlive, now - seen, graceMillis);
            String state = null;
            if (!leader) {
                state = "another router's resolver acts (" + action.name().toLowerCase(Locale.ROOT) + ")";
            } else {
                if (action == RecoveryAction.FENCE) {
                    Fenced fence = fenced.computeIfAbsent(xid, this::fence);
                    action = fence.action();
                    decided = fence.decided();
                    state = fence.why();
                }
                if (action == RecoveryAction.WAIT) {
                    if (state == null) {
                        state = decided == null
                                ? "owner router alive: preparing or committing"
                                : "owner router alive: committing";
                    }
                } else {
                    state = finish(f, action == RecoveryAction.COMMIT ? Outcome.COMMIT : Outcome.ROLLBACK);
                    if (state == null) {
                        resolved++;
                        firstSeen.remove(e.getKey());
                    }
                }
            }
            if (state != null) {
                left.add(new InDoubt(
                        xid.gtrid(),
                        f.branch().hostgroup(),
                        decided == null ? "none" : decided.text(),
                        ownerAlive,
                        now - seen,
                        state));
            }
        }
        if (only == null) {
            if (leader && everyShardAnswered) {
                forgetFinished(found, rows);
            }
            unresolved = List.copyOf(left);
            metrics.inDoubt(left.size());
        }
        return resolved;
    }

    /** What a fence of a transaction came to: the action, the decision then known, why it waits. */
    private record Fenced(RecoveryAction action, Outcome decided, String why) {}

    /**
     * Inserts a rollback row for {@code xid} on its manager (autocommit, short lock wait): in, the
     * transaction is rolled back; a duplicate key means a row is there (the manager's commit, or an
     * earlier fence), read again.
     */
    private Fenced fence(Xid xid) {
        Hostgroup manager = hostgroups.get(xid.manager());
        if (manager == null) {
            return new Fenced(
                    RecoveryAction.WAIT,
                    null,
                    "its metadata manager, hostgroup " + xid.manager() + ", is not configured: resolve it by hand");
        }
        RecoveryAction.Fence fence;
        Outcome reRead = null;
        String why = null;
        try {
            List<String> steps = new ArrayList<>();
            steps.add("SET SESSION innodb_lock_wait_timeout = " + FENCE_LOCK_WAIT_SECONDS);
            steps.addAll(decisions.createSteps());
            steps.add(decisions.insert(xid, Outcome.ROLLBACK));
            List<DirectStatement.Answer> answers = runEach(manager, steps);
            DirectStatement.Answer insert = answers.get(answers.size() - 1);
            int code = insert.error() == null ? 0 : insert.error().code();
            fence = code == 0
                    ? RecoveryAction.Fence.INSERTED
                    : code == DecisionTable.DUPLICATE_KEY
                            ? RecoveryAction.Fence.DUPLICATE
                            : code == DecisionTable.LOCK_WAIT_TIMEOUT
                                    ? RecoveryAction.Fence.LOCK_WAIT
                                    : RecoveryAction.Fence.FAILED;
            if (fence == RecoveryAction.Fence.DUPLICATE) {
                reRead = readDecision(manager, xid);
            } else if (fence == RecoveryAction.Fence.LOCK_WAIT) {
                why = "its metadata manager's transaction holds the decision row: tried again next pass";
            } else if (fence == RecoveryAction.Fence.FAILED) {
                why = "fencing on hostgroup " + xid.manager() + " failed: ERROR " + code + " "
                        + insert.error().message();
            }
        } catch (Exception e) {
            fence = RecoveryAction.Fence.FAILED;
            why = "fencing on hostgroup " + xid.manager() + " failed: " + e;
        }
        RecoveryAction action = RecoveryAction.afterFence(fence, reRead);
        if (fence == RecoveryAction.Fence.INSERTED) {
            log.info("two-phase resolver: fenced {} (rollback row on hostgroup {})", xid, xid.manager());
        }
        Outcome decided = fence == RecoveryAction.Fence.INSERTED ? Outcome.ROLLBACK : reRead;
        return new Fenced(action, decided, action == RecoveryAction.WAIT && why == null ? "fence met no row" : why);
    }

    /** The decision row of {@code xid} on its manager, or null. */
    private Outcome readDecision(Hostgroup manager, Xid xid) throws Exception {
        DirectStatement.Answer answer =
                runEach(manager, List.of(decisions.select(xid))).get(0);
        if (answer.error() != null || answer.rows().isEmpty()) {
            return null;
        }
        return Outcome.named(answer.rows().get(0).get(0));
    }

    /**
     * Writes {@code outcome} as {@code xid}'s decision (by hand); returns the decision now there:
     * {@code outcome}, the other one, or null when the manager could not be asked. A manager no
     * longer configured gets no row.
     */
    private Outcome writeDecision(Xid xid, Outcome outcome) throws Exception {
        Hostgroup manager = hostgroups.get(xid.manager());
        if (manager == null) {
            // the operator's call on a transaction whose manager left the configuration: no row to write
            log.warn(
                    "two-phase: {} resolved by hand as {} without a decision row (hostgroup {} is not configured)",
                    xid,
                    outcome.text(),
                    xid.manager());
            return outcome;
        }
        List<String> steps = new ArrayList<>();
        steps.add("SET SESSION innodb_lock_wait_timeout = " + FENCE_LOCK_WAIT_SECONDS);
        steps.addAll(decisions.createSteps());
        steps.add(decisions.insert(xid, outcome));
        List<DirectStatement.Answer> answers = runEach(manager, steps);
        DirectStatement.Answer insert = answers.get(answers.size() - 1);
        if (insert.error() == null) {
            return outcome;
        }
        if (insert.error().code() == DecisionTable.DUPLICATE_KEY) {
            return readDecision(manager, xid);
        }
        throw new IllegalStateException("writing the decision on hostgroup " + xid.manager() + " failed: ERROR "
                + insert.error().code() + " " + insert.error().message());
    }

    /** Commits or rolls back one branch; null when done, else why not. */
    private String finish(Found f, Outcome outcome) {
        String verb = outcome == Outcome.COMMIT ? "XA COMMIT " : "XA ROLLBACK ";
        try {
            DirectStatement.Answer answer = run(f.on(), verb + f.branch().sql());
            if (answer.error() == null
                    || answer.error().code() == XAER_NOTA
                    || answer.error().code() == XA_RBROLLBACK) {
                metrics.recovered(outcome);
                log.info(
                        "two-phase resolver: {} of {} on hostgroup {}",
                        outcome.text(),
                        f.branch().xid(),
                        f.branch().hostgroup());
                return null;
            }
            return verb.trim() + " failed: ERROR " + answer.error().code() + " "
                    + answer.error().message();
        } catch (Exception e) {
            return verb.trim() + " failed: " + e;
        }
    }

    /**
     * Deletes, in batches, the commit rows the previous pass listed that no branch found now
     * belongs to, and the rollback rows past retention; remembers this pass's commit rows.
     */
    private void forgetFinished(Map<String, Found> found, Map<String, Row> rows) {
        Set<String> open = new HashSet<>();
        found.values().forEach(f -> open.add(f.branch().xid().gtrid()));
        Map<Integer, List<String>> finished = new TreeMap<>();
        listedCommits.forEach((gtrid, listedOn) -> {
            if (!open.contains(gtrid)) {
                finished.computeIfAbsent(listedOn, k -> new ArrayList<>()).add(gtrid);
            }
        });
        Map<String, Integer> commits = new HashMap<>();
        rows.forEach((gtrid, row) -> {
            if (row.outcome() == Outcome.COMMIT) {
                commits.put(gtrid, row.listedOn());
            } else if (row.old() && !open.contains(gtrid)) {
                finished.computeIfAbsent(row.listedOn(), k -> new ArrayList<>()).add(gtrid);
            }
        });
        finished.forEach((hostgroupId, ids) -> {
            Hostgroup hostgroup = hostgroups.get(hostgroupId);
            if (hostgroup == null) {
                return;
            }
            for (int from = 0; from < ids.size(); from += DELETE_BATCH) {
                List<String> batch = ids.subList(from, Math.min(ids.size(), from + DELETE_BATCH));
                try {
                    DirectStatement.Answer answer = run(hostgroup, decisions.delete(batch));
                    if (answer.error() != null) {
                        log.debug(
                                "deleting decisions on hostgroup {}: ERROR {}",
                                hostgroupId,
                                answer.error().code());
                    }
                } catch (Exception e) {
                    log.debug("deleting decisions on hostgroup {} failed: {}", hostgroupId, e.toString());
                }
            }
        });
        // a row deleted now is listed no more; one whose DELETE failed is listed again next pass
        Set<String> deleted = new HashSet<>();
        finished.values().forEach(deleted::addAll);
        commits.keySet().removeAll(deleted);
        listedCommits = commits;
    }

    private boolean leads() throws Exception {
        if (latch == null) {
            LeaderLatch l = new LeaderLatch(client, root + "/transactions/resolver");
            l.start();
            latch = l;
            l.await(2, TimeUnit.SECONDS);
        }
        return latch.hasLeadership();
    }

    private boolean ownerAlive(long epoch) {
        try {
            return epochs.ownerAlive(epoch);
        } catch (Exception e) {
            throw new IllegalStateException("checking router epoch " + epoch + ": " + e, e);
        }
    }

    /** A Shardgate branch from an XA RECOVER row (formatID, gtrid_length, bqual_length, data), or null. */
    static Xid.Branch branchOf(List<String> row) {
        if (row.size() < 4 || row.get(0) == null || row.get(1) == null || row.get(2) == null) {
            return null;
        }
        try {
            return Xid.branchOf(
                    Long.parseLong(row.get(0)), Integer.parseInt(row.get(1)), Integer.parseInt(row.get(2)), row.get(3));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A branch and the hostgroup whose server listed it (where it is resolved). */
    private record Found(Xid.Branch branch, Hostgroup on) {}

    private List<DirectStatement.Answer> runEach(Hostgroup hostgroup, List<String> statements) throws Exception {
        return DirectStatement.runEach(
                        connector,
                        loops.next(),
                        hostgroup.writer().address(),
                        hostgroup.ownLogin(),
                        statements,
                        10_000 + 1_000L * FENCE_LOCK_WAIT_SECONDS)
                .get();
    }

    private DirectStatement.Answer run(Hostgroup hostgroup, String sql) throws Exception {
        return DirectStatement.run(
                        connector, loops.next(), hostgroup.writer().address(), hostgroup.ownLogin(), sql, 10_000)
                .get();
    }

    @Override
    public void close() {
        thread.shutdownNow();
        LeaderLatch l = latch;
        if (l != null) {
            try {
                l.close();
            } catch (Exception | Error e) {
                // the client may be closed already: the latch's node goes with the session
            }
        }
    }
}
