package io.shardgate.router.execute;

import io.netty.channel.EventLoop;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.twophase.Outcome;
import io.shardgate.router.twophase.TransactionLog;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.router.twophase.Xid;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a two_phase transaction's XA branches, one per lease (see docs/transactions.md):
 * <ul>
 *   <li>commit where at most one branch may have written (the others ran only reads, {@link
 *       io.shardgate.router.twophase.ReadOnlyStatement}): {@code XA END}, {@code XA COMMIT ... ONE
 *       PHASE} on each read-only branch, then the same on the writer once they all succeeded; no
 *       PREPARE, no decision. Should one of them fail (a deadlock made it rollback-only) the writer
 *       and every branch still open roll back;
 *   <li>commit with two or more writers: {@code XA END} and {@code XA PREPARE} on each, the commit decision
 *       logged in ZooKeeper ({@link TransactionLog}), then {@code XA COMMIT} on each and the decision
 *       deleted. A failed PREPARE (or decision) rolls every branch back and the client hears
 *       ER_XA_RBROLLBACK naming the shards and the xid. Once the decision is logged the transaction
 *       is committed: a shard that fails its XA COMMIT keeps its branch prepared and the resolver
 *       commits it ({@link io.shardgate.router.twophase.Resolver});
 *   <li>rollback: {@code XA END}, {@code XA ROLLBACK} on each.
 * </ul>
 * Runs on the session's event loop; the decision log answers on Curator's thread and the steps
 * after it hop back. {@code then} hears null (committed / rolled back) or the client's error.
 */
public final class XaCommit {
    private static final Logger log = LoggerFactory.getLogger(XaCommit.class);
    /**
     * Pins a connection running a branch: MariaDB clears SERVER_STATUS_IN_TRANS when a deadlock
     * makes the branch rollback-only, and such a connection must not go back to the pool.
     */
    public static final Set<PinReason> BRANCH = EnumSet.of(PinReason.XA_BRANCH);

    private final EventLoop loop;
    private final TwoPhase twoPhase;
    private final Xid xid;
    private final List<BackendLease> leases;
    /** Hostgroups whose branch ran only statements known to change no data. */
    private final Set<Integer> readOnly;
    /** Leases whose branch may still be open: a rollback ends these. */
    private final List<BackendLease> open;

    private final Consumer<ErrPacket> then;
    /** Hostgroup to the error its step got, in hostgroup order. */
    private final Map<Integer, ErrPacket> failures = new TreeMap<>();

    private int pending;
    /** PREPARE was sent somewhere: a branch may be prepared whatever became of the connection. */
    private boolean prepareSent;
    /** The commit decision was asked of the log: from then on only the resolver may roll back. */
    private boolean deciding;
    /** The client's command was given up (the session closed): nothing more is sent. */
    private boolean abandoned;
    /** What became of the transaction so far, for a lost connection's error ({@link #lossNote}). */
    private String outcome = "rolled back: no branch was prepared";
    /** When the current two-phase step began (System.nanoTime), for its timer. */
    private long stepStarted;

    XaCommit(
            EventLoop loop,
            TwoPhase twoPhase,
            Xid xid,
            List<BackendLease> leases,
            Set<Integer> readOnly,
            Consumer<ErrPacket> then) {
        this.loop = loop;
        this.twoPhase = twoPhase;
        this.xid = xid;
        this.leases = List.copyOf(leases);
        this.readOnly = Set.copyOf(readOnly);
        this.open = new ArrayList<>(leases);
        this.then = then;
    }

    /** COMMIT: one phase when at most one branch wrote, two phases when several did. */
    void commit() {
        if (TwoPhaseRules.needsTwoPhase(hostgroups(), readOnly)) {
            prepareAll();
            return;
        }
        BackendLease writer = null;
        for (BackendLease lease : leases) {
            if (!readOnly.contains(lease.hostgroup().id())) {
                writer = lease;
            }
        }
        onePhase(writer);
    }

    /**
     * What the client hears with the error of a lost backend connection while this runs (the
     * session then closes, see {@link #abandon}): the xid, the hostgroups and the outcome.
     */
    String lossNote() {
        return "transaction " + xid.gtrid() + " (hostgroups " + hostgroups() + ") " + outcome;
    }

    /** ROLLBACK (the client's, or a failed statement's): every branch rolled back; always succeeds. */
    void rollback() {
        rollbackAll(null);
    }

    /**
     * The session closed mid-way (its connections close with it): branches not prepared roll back
     * with their connections; prepared ones stay for the resolver, which must not wait for this
     * live router, so a rollback is logged unless the commit decision was already asked for.
     */
    void abandon() {
        abandoned = true;
        if (prepareSent && !deciding) {
            twoPhase.log().logDecision(xid, Outcome.ROLLBACK, hostgroups(), logged -> {});
        }
    }

    private String branch(BackendLease lease) {
        return xid.sql(lease.hostgroup().id());
    }

    /**
     * Ends the read-only branches with {@code XA COMMIT ... ONE PHASE}, then commits the {@code
     * writer} (null: none wrote) the same way. Committing, not rolling back, the read-only branches
     * keeps MySQL's answer exactly whatever they did: a server commits everything a transaction ran
     * (a function the router did not know of, a sequence), and a read-only branch's commit has
     * nothing to undo, so committing it before the writer's outcome is known changes no data.
     */
    private void onePhase(BackendLease writer) {
        if (leases.size() == 1 && writer != null) { // one branch: XA END and the commit in one round trip
            outcome = "outcome unknown: XA COMMIT ... ONE PHASE was sent to hostgroup "
                    + writer.hostgroup().id() + ", whose connection ended before it answered";
            run(writer, List.of("XA END " + branch(writer), "XA COMMIT " + branch(writer) + " ONE PHASE"), failure -> {
                if (failure == null) {
                    done(writer);
                    then.accept(null);
                    return;
                }
                failures.put(writer.hostgroup().id(), failure);
                rollbackAll(null);
            });
            return;
        }
        pending = leases.size();
        for (BackendLease lease : leases) {
            List<String> steps = lease == writer
                    ? List.of("XA END " + branch(lease))
                    : List.of("XA END " + branch(lease), "XA COMMIT " + branch(lease) + " ONE PHASE");
            run(lease, steps, failure -> {
                if (failure != null) {
                    failures.put(lease.hostgroup().id(), failure);
                } else if (lease != writer) {
                    done(lease);
                }
                if (--pending == 0) {
                    readersEnded(writer);
                }
            });
        }
    }

    private void readersEnded(BackendLease writer) {
        if (!failures.isEmpty()) {
            rollbackAll(null); // a read-only branch failed (rollback-only): the whole transaction rolls back
            return;
        }
        if (writer == null) {
            then.accept(null);
            return;
        }
        outcome = "outcome unknown: XA COMMIT ... ONE PHASE was sent to hostgroup "
                + writer.hostgroup().id() + ", whose connection ended before it answered";
        run(writer, List.of("XA COMMIT " + branch(writer) + " ONE PHASE"), failure -> {
            if (failure == null) {
                done(writer);
                then.accept(null);
                return;
            }
            failures.put(writer.hostgroup().id(), failure);
            rollbackAll(null);
        });
    }

    private void prepareAll() {
        stepStarted = System.nanoTime();
        pending = leases.size();
        prepareSent = true;
        outcome = "rolled back: the resolver rolls back its prepared branches";
        for (BackendLease lease : leases) {
            run(lease, List.of("XA END " + branch(lease), "XA PREPARE " + branch(lease)), failure -> {
                if (failure != null) {
                    failures.put(lease.hostgroup().id(), failure);
                }
                if (--pending == 0) {
                    prepared();
                }
            });
        }
    }

    private void prepared() {
        if (!failures.isEmpty()) {
            rollbackAll(null);
            return;
        }
        long now = System.nanoTime();
        twoPhase.metrics().prepared(now - stepStarted);
        stepStarted = now;
        deciding = true;
        outcome = "outcome unknown: its commit decision was being logged in ZooKeeper (the resolver finishes its"
                + " prepared branches by the log)";
        twoPhase.log()
                .logDecision(
                        xid,
                        Outcome.COMMIT,
                        hostgroups(),
                        logged -> loop.execute(() -> {
                            if (abandoned) {
                                return; // logged or not, the resolver finishes it (see abandon)
                            }
                            if (logged.failed() || logged.outcome() != Outcome.COMMIT) {
                                rollbackAll(
                                        logged.failed()
                                                ? "the commit decision could not be logged in ZooKeeper ("
                                                        + logged.failure() + ")"
                                                : "a resolver rolled it back first");
                            } else {
                                long decided = System.nanoTime();
                                twoPhase.metrics().decided(decided - stepStarted);
                                stepStarted = decided;
                                commitAll();
                            }
                        }));
    }

    private void commitAll() {
        outcome = "committed: the resolver commits its branches left prepared";
        pending = leases.size();
        for (BackendLease lease : leases) {
            run(lease, List.of("XA COMMIT " + branch(lease)), failure -> {
                if (failure != null) {
                    failures.put(lease.hostgroup().id(), failure);
                    drop(lease); // the branch stays prepared: the resolver commits it
                } else {
                    done(lease);
                }
                if (--pending == 0) {
                    committed();
                }
            });
        }
    }

    private void committed() {
        twoPhase.metrics().branchesCommitted(System.nanoTime() - stepStarted);
        twoPhase.metrics().committed();
        if (failures.isEmpty()) {
            twoPhase.log().forget(xid);
        } else {
            // decided: the resolver commits what is left, the client's COMMIT stands
            log.warn("transaction {} is committed, XA COMMIT failed on {}: the resolver finishes it", xid, failures);
        }
        then.accept(null);
    }

    /**
     * Rolls every branch back; with a {@code reason} or failures so far the client hears the
     * error, else (a client ROLLBACK) OK. A branch that may stay prepared (its connection failed
     * after a PREPARE was sent) gets a logged rollback decision, so the resolver rolls it back
     * although this router is alive.
     */
    private void rollbackAll(String reason) {
        outcome = prepareSent
                ? "rolled back: the resolver rolls back its prepared branches"
                : "rolled back: no branch was prepared";
        List<Integer> unconfirmed = new ArrayList<>();
        List<BackendLease> ending = List.copyOf(open);
        if (ending.isEmpty()) {
            rolledBack(reason, unconfirmed);
            return;
        }
        pending = ending.size();
        for (BackendLease lease : ending) {
            run(
                    lease,
                    List.of("XA END " + branch(lease)),
                    ignored -> run(lease, List.of("XA ROLLBACK " + branch(lease)), failure -> {
                        if (failure != null && !XaCommit.rolledBackAlready(failure.code())) {
                            unconfirmed.add(lease.hostgroup().id());
                            drop(lease);
                        } else {
                            done(lease);
                        }
                        if (--pending == 0) {
                            rolledBack(reason, unconfirmed);
                        }
                    }));
        }
    }

    private void rolledBack(String reason, List<Integer> unconfirmed) {
        twoPhase.metrics().rolledBack();
        if (prepareSent && !unconfirmed.isEmpty()) {
            twoPhase.log().logDecision(xid, Outcome.ROLLBACK, hostgroups(), logged -> {
                if (logged.failed()) {
                    log.warn(
                            "transaction {}: rollback of {} unconfirmed and not logged: {}",
                            xid,
                            unconfirmed,
                            logged.failure().toString());
                }
            });
        }
        if (reason == null && failures.isEmpty()) {
            then.accept(null);
            return;
        }
        List<String> causes = new ArrayList<>();
        if (reason != null) {
            causes.add(reason);
        }
        failures.forEach((hostgroup, err) ->
                causes.add("hostgroup " + hostgroup + " failed with ERROR " + err.code() + ": " + err.message()));
        String why = "Shardgate two-phase commit of transaction " + xid.gtrid() + " (hostgroups " + hostgroups()
                + ") rolled back: " + String.join("; ", causes);
        then.accept(Errors.of(ErrorCode.ER_XA_RBROLLBACK, why));
    }

    /**
     * XA ROLLBACK errors that mean the branch is gone anyway: XAER_NOTA (1397, no such branch),
     * XA_RBROLLBACK (1402), XA_RBTIMEOUT (1613), XA_RBDEADLOCK (1614).
     */
    static boolean rolledBackAlready(int code) {
        return code == 1397 || code == 1402 || code == 1613 || code == 1614;
    }

    private List<Integer> hostgroups() {
        List<Integer> out = new ArrayList<>(leases.size());
        leases.forEach(l -> out.add(l.hostgroup().id()));
        return out;
    }

    /**
     * Runs {@code steps} on the lease's connection in turn, in one round trip ({@link
     * BackendLease#runStatements}); {@code after} hears the first error, or null.
     */
    private static void run(BackendLease lease, List<String> steps, Consumer<ErrPacket> after) {
        if (lease.current() == null) {
            after.accept(Errors.of(ErrorCode.ER_UNKNOWN_ERROR, "the connection to the shard was lost"));
            return;
        }
        if (steps.size() == 1) {
            lease.runStatement(steps.get(0), after);
        } else {
            lease.runStatements(steps, after);
        }
    }

    /** The branch's state on this connection is unknown: closed, never pooled (prepared branches outlive it). */
    private void drop(BackendLease lease) {
        open.remove(lease);
        lease.unpin(PinReason.XA_BRANCH);
        lease.discard();
    }

    /** The branch ended on this lease's connection: it may go back to the pool. */
    private void done(BackendLease lease) {
        open.remove(lease);
        lease.unpin(PinReason.XA_BRANCH);
        if (lease.current() != null) {
            lease.afterResponse(lease.current().relay().statusFlags(), false);
        }
    }
}
