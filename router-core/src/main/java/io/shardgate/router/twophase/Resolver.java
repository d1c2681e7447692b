package io.shardgate.router.twophase;

import io.netty.channel.EventLoopGroup;
import io.shardgate.admin.http.TransactionControl;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.DirectStatement;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * hostgroup's writer, each Shardgate branch matched with the decision log and acted on by {@link
 * RecoveryAction}; then decisions whose branches are all gone are deleted.
 *
 * <p>Every router runs one; a Curator {@link LeaderLatch} lets one act at a time (the others only
 * list what is in doubt, for their admin view), so one resolver acts per transaction. A resolver
 * racing the transaction's owner is harmless: committing or rolling back a branch twice gets
 * XAER_NOTA the second time, and the decision itself is created once (see {@link TransactionLog}).
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

    private final TransactionLog transactions;
    private final TwoPhaseMetrics metrics;
    private final Hostgroups hostgroups;
    private final BackendConnector connector;
    private final EventLoopGroup loops;
    private final CuratorFramework client;
    private final String root;
    private final long periodMillis;
    private final long graceMillis;
    private final long stuckMillis;
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

    /** A router that does not lead lists in-doubt branches once in this many periods. */
    static final int FOLLOWER_PERIODS = 15;

    private LeaderLatch latch;

    /** A prepared branch the last pass left as it was, and why. */
    public record InDoubt(
            String xid, int hostgroup, String decision, boolean ownerAlive, long preparedMillis, String state) {}

    public Resolver(
            TransactionLog transactions,
            TwoPhaseMetrics metrics,
            Hostgroups hostgroups,
            BackendConnector connector,
            EventLoopGroup loops,
            CuratorFramework client,
            String root,
            long periodMillis,
            long graceMillis,
            long stuckMillis) {
        this.transactions = transactions;
        this.metrics = metrics;
        this.hostgroups = hostgroups;
        this.connector = connector;
        this.loops = loops;
        this.client = client;
        this.root = root;
        this.periodMillis = periodMillis;
        this.graceMillis = graceMillis;
        this.stuckMillis = stuckMillis;
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
        return transactions.epoch();
    }

    /** The prepared branches the last pass found and left, for the admin interface. */
    public List<InDoubt> unresolved() {
        return unresolved;
    }

    /**
     * Resolves transaction {@code gtrid} by hand: logs {@code outcome} (refused when the other one
     * is logged already), then commits or rolls back its branches on every shard. Blocks.
     *
     * @return how many branches were resolved
     */
    public int resolve(String gtrid, Outcome outcome) throws Exception {
        Xid xid = Xid.parse(gtrid);
        if (xid == null) {
            throw new IllegalArgumentException(
                    "'" + gtrid + "' is not a Shardgate transaction id (sg.<node>.<epoch>.<n>)");
        }
        Outcome logged = transactions.logDecisionAndWait(xid, outcome, List.of());
        if (logged != outcome) {
            throw new IllegalStateException("transaction " + gtrid + " is already decided: " + logged.text());
        }
        return submit(() -> pass(xid, outcome)).get(60, TimeUnit.SECONDS);
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
     * acted on whether or not this router leads. Returns the branches resolved.
     */
    private int pass(Xid only, Outcome forced) throws Exception {
        if (transactions.epoch() < 0) {
            transactions.start(5_000);
            log.info("two-phase commit: this router's xid epoch is {}", transactions.epoch());
        }
        boolean leader = only != null || leads();
        // decisions listed before the scan: all their branches were prepared before it (PREPARE
        // comes before the decision), so a decision none of whose branches the scan finds is done
        List<Xid> decidedBefore = transactions.decided();
        Map<String, Found> found = new LinkedHashMap<>();
        boolean everyShardAnswered = true;
        for (Hostgroup hostgroup : hostgroups.all()) {
            DirectStatement.Answer answer;
            try {
                answer = run(hostgroup, "XA RECOVER");
            } catch (Exception e) {
                everyShardAnswered = false;
                log.debug("XA RECOVER on hostgroup {} failed: {}", hostgroup.id(), e.toString());
                continue;
            }
            if (answer.error() != null) {
                everyShardAnswered = false;
                log.warn(
                        "XA RECOVER on hostgroup {}: ERROR {} {}",
                        hostgroup.id(),
                        answer.error().code(),
                        answer.error().message());
                continue;
            }
            for (List<String> row : answer.rows()) {
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
        Map<Xid, TransactionLog.Decision> decisions = new HashMap<>();
        Map<Long, Boolean> alive = new HashMap<>();
        List<InDoubt> left = new ArrayList<>();
        int resolved = 0;
        for (Map.Entry<String, Found> e : found.entrySet()) {
            Found f = e.getValue();
            Xid xid = f.branch().xid();
            long seen = firstSeen.computeIfAbsent(e.getKey(), k -> now);
            TransactionLog.Decision decision = decisions.computeIfAbsent(xid, this::readDecision);
            boolean ownerAlive = alive.computeIfAbsent(xid.epoch(), this::ownerAlive);
            Outcome logged = forced != null ? forced : decision == null ? null : decision.outcome();
            long age = decision == null ? 0 : now - decision.loggedAtMillis();
            RecoveryAction action = forced == Outcome.COMMIT
                    ? RecoveryAction.COMMIT
                    : forced == Outcome.ROLLBACK
                            ? RecoveryAction.ROLLBACK
                            : RecoveryAction.of(logged, ownerAlive, age, graceMillis, now - seen, stuckMillis);
            String state = null;
            if (!leader) {
                state = "another router's resolver acts (" + action.name().toLowerCase(java.util.Locale.ROOT) + ")";
            } else if (action == RecoveryAction.WAIT) {
                state = logged == null ? "owner router alive: still preparing" : "owner router alive: committing";
            } else {
                Outcome outcome = action == RecoveryAction.COMMIT
                        ? Outcome.COMMIT
                        : action == RecoveryAction.ROLLBACK
                                ? Outcome.ROLLBACK
                                : transactions.logDecisionAndWait(xid, Outcome.ROLLBACK, List.of());
                state = finish(f, outcome);
                if (state == null) {
                    resolved++;
                    firstSeen.remove(e.getKey());
                }
            }
            if (state != null) {
                left.add(new InDoubt(
                        xid.gtrid(),
                        f.branch().hostgroup(),
                        logged == null ? "none" : logged.text(),
                        ownerAlive,
                        now - seen,
                        state));
            }
        }
        if (leader && everyShardAnswered && only == null) {
            forgetFinished(decidedBefore, found, alive, now);
        }
        if (only == null) {
            unresolved = List.copyOf(left);
            metrics.inDoubt(left.size());
        }
        return resolved;
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

    /** Deletes decisions whose branches are all resolved (commit: once its owner is done with it). */
    private void forgetFinished(List<Xid> decidedBefore, Map<String, Found> found, Map<Long, Boolean> alive, long now)
            throws Exception {
        Set<Xid> open = new java.util.HashSet<>();
        found.values().forEach(f -> open.add(f.branch().xid()));
        for (Xid xid : decidedBefore) {
            if (open.contains(xid)) {
                continue;
            }
            TransactionLog.Decision d = transactions.read(xid);
            if (d == null) {
                continue;
            }
            long age = now - d.loggedAtMillis();
            boolean ownerAlive = alive.computeIfAbsent(xid.epoch(), this::ownerAlive);
            boolean done = d.outcome() == Outcome.COMMIT
                    ? !ownerAlive || age >= graceMillis
                    : age >= TransactionLog.ROLLBACK_RETENTION_MILLIS;
            if (done) {
                transactions.forgetAndWait(xid);
            }
        }
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

    private TransactionLog.Decision readDecision(Xid xid) {
        try {
            return transactions.read(xid);
        } catch (Exception e) {
            throw new IllegalStateException("reading the decision of " + xid + ": " + e, e);
        }
    }

    private boolean ownerAlive(long epoch) {
        try {
            return transactions.ownerAlive(epoch);
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
