package io.shardgate.router.execute;

import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.PinReason;
import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.Outcome;
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
 * Ends a two_phase transaction's branches, one per lease (see docs/transactions.md). The lease of
 * the xid's manager hostgroup (its metadata manager, MM) runs a plain transaction; every other
 * lease an XA branch.
 * <ul>
 *   <li>commit where at most one branch may have written (the others ran only reads, {@link
 *       io.shardgate.router.twophase.ReadOnlyStatement}): the read-only branches end first ({@code
 *       COMMIT} on the MM, {@code XA END} + {@code XA COMMIT ... ONE PHASE} elsewhere), then the
 *       writer the same way once they all succeeded; no PREPARE, no decision. A transaction on the
 *       MM alone commits with one plain {@code COMMIT}. Should one of them fail (a deadlock made it
 *       rollback-only) the writer and every branch still open roll back;
 *   <li>commit with two or more writers: {@code XA END} and {@code XA PREPARE} on each XA branch (in
 *       parallel, and {@link #PROBE} on the MM: a server that rolled its transaction back, a
 *       deadlock, fails the commit rather than let the decision row commit alone), then on the MM, in its own still-open transaction, {@code INSERT} of the decision
 *       row ({@link DecisionTable}) and {@code COMMIT} in one round trip: that commit is the
 *       decision. Then {@code XA COMMIT} on each XA branch. A failed PREPARE, or an INSERT that
 *       meets a resolver's rollback row (duplicate key), rolls every branch back and the client
 *       hears ER_XA_RBROLLBACK naming the shards and the xid. Once the MM committed the transaction
 *       is committed: a shard that fails its XA COMMIT keeps its branch prepared and the resolver
 *       commits it ({@link io.shardgate.router.twophase.Resolver}); when the MM's answer is lost
 *       the client hears that the outcome is unknown, and the resolver finishes the branches by
 *       the MM's row;
 *   <li>rollback: {@code ROLLBACK} on the MM, {@code XA END} + {@code XA ROLLBACK} on the others.
 * </ul>
 * Runs on the session's event loop. {@code then} hears null (committed / rolled back) or the
 * client's error.
 */
public final class XaCommit {
    private static final Logger log = LoggerFactory.getLogger(XaCommit.class);
    /**
     * Pins a connection running a branch: MariaDB clears SERVER_STATUS_IN_TRANS when a deadlock
     * makes the branch rollback-only, and such a connection must not go back to the pool.
     */
    public static final Set<PinReason> BRANCH = EnumSet.of(PinReason.XA_BRANCH);
    /** Sent to the MM while the branches prepare: its OK's status says whether its transaction is open. */
    static final String PROBE = "DO 0";

    private final TwoPhase twoPhase;
    private final Xid xid;
    private final List<BackendLease> leases;
    /** The metadata manager's lease (a plain transaction), or null when the transaction never reached it. */
    private final BackendLease manager;
    /** Hostgroups whose branch ran only statements known to change no data. */
    private final Set<Integer> readOnly;
    /** Leases whose branch may still be open: a rollback ends these. */
    private final List<BackendLease> open;

    private final Consumer<ErrPacket> then;
    /** Hostgroup to the error its step got, in hostgroup order. */
    private final Map<Integer, ErrPacket> failures = new TreeMap<>();

    private int pending;
    /** The MM's server reported no open transaction when the decision was due (see {@link #PROBE}). */
    private boolean managerRolledBack;
    /** PREPARE was sent somewhere: a branch may be prepared whatever became of the connection. */
    private boolean prepareSent;
    /** The client's command was given up (the session closed): nothing more is sent. */
    private boolean abandoned;
    /** What became of the transaction so far, for a lost connection's error ({@link #lossNote}). */
    private String outcome = "rolled back: no branch was prepared";
    /** When the current two-phase step began (System.nanoTime), for its timer. */
    private long stepStarted;

    XaCommit(TwoPhase twoPhase, Xid xid, List<BackendLease> leases, Set<Integer> readOnly, Consumer<ErrPacket> then) {
        this.twoPhase = twoPhase;
        this.xid = xid;
        this.leases = List.copyOf(leases);
        BackendLease mm = null;
        for (BackendLease lease : leases) {
            if (lease.hostgroup().id() == xid.manager()) {
                mm = lease;
            }
        }
        this.manager = mm;
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
     * The session closed mid-way (its connections close with it): the MM's transaction and the
     * branches not prepared roll back with their connections; prepared ones stay for the resolver,
     * which finishes them by the MM's decision row (none: it fences and rolls back).
     */
    void abandon() {
        abandoned = true;
    }

    private boolean isManager(BackendLease lease) {
        return lease == manager;
    }

    private String branch(BackendLease lease) {
        return xid.sql(lease.hostgroup().id());
    }

    /** What ends a branch that commits in one phase: COMMIT on the MM, XA END + XA COMMIT ... ONE PHASE elsewhere. */
    private List<String> onePhaseSteps(BackendLease lease) {
        return isManager(lease)
                ? List.of(StatementAtomicity.COMMIT)
                : List.of("XA END " + branch(lease), "XA COMMIT " + branch(lease) + " ONE PHASE");
    }

    /**
     * Ends the read-only branches in one phase, then commits the {@code writer} (null: none wrote)
     * the same way. Committing, not rolling back, the read-only branches keeps MySQL's answer
     * exactly whatever they did: a server commits everything a transaction ran (a function the
     * router did not know of, a sequence), and a read-only branch's commit has nothing to undo, so
     * committing it before the writer's outcome is known changes no data.
     */
    private void onePhase(BackendLease writer) {
        if (leases.size() == 1 && writer != null) { // one branch: its end and commit in one round trip
            commitWriter(writer, onePhaseSteps(writer));
            return;
        }
        pending = leases.size();
        for (BackendLease lease : leases) {
            List<String> steps = lease != writer
                    ? onePhaseSteps(lease)
                    : isManager(lease) ? List.of() : List.of("XA END " + branch(lease));
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
        commitWriter(
                writer,
                isManager(writer)
                        ? List.of(StatementAtomicity.COMMIT)
                        : List.of("XA COMMIT " + branch(writer) + " ONE PHASE"));
    }

    private void commitWriter(BackendLease writer, List<String> steps) {
        outcome = "outcome unknown: " + String.join("; ", steps) + " was sent to hostgroup "
                + writer.hostgroup().id() + ", whose connection ended before it answered";
        run(writer, steps, failure -> {
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
        if (manager == null) { // its first shard could not be reached: no decision can be made there
            rollbackAll("its metadata manager, hostgroup " + xid.manager() + " (the first shard it was sent to), was"
                    + " never reached");
            return;
        }
        stepStarted = System.nanoTime();
        pending = leases.size();
        prepareSent = true;
        outcome = "rolled back: the resolver rolls back its prepared branches";
        for (BackendLease lease : leases) {
            if (isManager(lease)) {
                // meanwhile, whether the MM's transaction is still open: a deadlock rolls it back, and
                // the ERR that says so carries no status, so the flags seen last may be stale; an
                // INSERT outside a transaction would commit the decision alone
                run(lease, List.of(PROBE), failure -> {
                    if (failure != null) {
                        failures.put(lease.hostgroup().id(), failure);
                    } else if (lease.current() == null
                            || (lease.current().relay().statusFlags() & ServerStatus.SERVER_STATUS_IN_TRANS) == 0) {
                        managerRolledBack = true;
                    }
                    if (--pending == 0) {
                        prepared();
                    }
                });
                continue;
            }
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
        if (managerRolledBack) {
            rollbackAll("the transaction on its metadata manager, hostgroup " + xid.manager()
                    + ", was rolled back by the server (a deadlock?)");
            return;
        }
        long now = System.nanoTime();
        twoPhase.metrics().prepared(now - stepStarted);
        stepStarted = now;
        DecisionTable decisions = twoPhase.decisions();
        outcome = "outcome unknown: hostgroup " + xid.manager() + " (its metadata manager) was committing it with its"
                + " decision row; the resolver finishes the prepared branches by that row";
        run(manager, List.of(decisions.insert(xid, Outcome.COMMIT), StatementAtomicity.COMMIT), failure -> {
            if (abandoned) {
                return; // committed or not, the resolver finishes it by the MM's row
            }
            if (failure == null) {
                long decided = System.nanoTime();
                twoPhase.metrics().decided(decided - stepStarted);
                stepStarted = decided;
                done(manager);
                commitAll();
            } else if (failure.code() == DecisionTable.DUPLICATE_KEY) {
                rollbackAll("a resolver rolled it back first (found its branches prepared with no decision and"
                        + " wrote the rollback on hostgroup " + xid.manager() + ")");
            } else if (DecisionTable.MISSING.contains(failure.code())) {
                decisions.missing(xid.manager());
                rollbackAll("the decision table " + decisions.name() + " is missing on hostgroup " + xid.manager()
                        + " (ERROR " + failure.code() + ": " + failure.message() + "); it is created again"
                        + " with the next transaction");
            } else {
                managerFailed(failure);
            }
        });
    }

    /**
     * The MM's INSERT or COMMIT failed otherwise: which one is not known, so neither is the
     * decision. The MM's transaction is rolled back (a no-op when it committed), the prepared
     * branches are left to the resolver, which reads the MM's row, and the client hears so.
     */
    private void managerFailed(ErrPacket failure) {
        run(manager, List.of(StatementAtomicity.ROLLBACK), ignored -> {
            drop(manager);
            for (BackendLease lease : List.copyOf(open)) {
                drop(lease); // prepared: the resolver commits or rolls them back by the decision
            }
            String why = "Shardgate two-phase commit of transaction " + xid.gtrid() + " (hostgroups " + hostgroups()
                    + "): outcome unknown: its metadata manager, hostgroup " + xid.manager() + ", answered the"
                    + " decision with ERROR " + failure.code() + ": " + failure.message() + "; the resolver commits"
                    + " or rolls back the other shards by its decision row";
            then.accept(Errors.of(ErrorCode.ER_ERROR_DURING_COMMIT, why));
        });
    }

    private void commitAll() {
        outcome = "committed: the resolver commits its branches left prepared";
        pending = leases.size() - 1;
        if (pending == 0) {
            committed();
            return;
        }
        for (BackendLease lease : leases) {
            if (isManager(lease)) {
                continue;
            }
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
        if (!failures.isEmpty()) {
            // decided: the resolver commits what is left, the client's COMMIT stands
            log.warn("transaction {} is committed, XA COMMIT failed on {}: the resolver finishes it", xid, failures);
        }
        then.accept(null);
    }

    /**
     * Rolls every branch back; with a {@code reason} or failures so far the client hears the
     * error, else (a client ROLLBACK) OK. A branch whose rollback is not confirmed (its connection
     * failed after a PREPARE was sent) is the resolver's: it finds no commit row and fences.
     */
    private void rollbackAll(String reason) {
        outcome = prepareSent
                ? "rolled back: the resolver rolls back its prepared branches"
                : "rolled back: no branch was prepared";
        List<BackendLease> ending = List.copyOf(open);
        if (ending.isEmpty()) {
            rolledBack(reason);
            return;
        }
        pending = ending.size();
        for (BackendLease lease : ending) {
            Consumer<ErrPacket> after = failure -> {
                if (failure != null && !XaCommit.rolledBackAlready(failure.code())) {
                    drop(lease);
                } else {
                    done(lease);
                }
                if (--pending == 0) {
                    rolledBack(reason);
                }
            };
            if (isManager(lease)) {
                run(lease, List.of(StatementAtomicity.ROLLBACK), after);
            } else {
                run(
                        lease,
                        List.of("XA END " + branch(lease)),
                        ignored -> run(lease, List.of("XA ROLLBACK " + branch(lease)), after));
            }
        }
    }

    private void rolledBack(String reason) {
        twoPhase.metrics().rolledBack();
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
     * BackendLease#runStatements}); {@code after} hears the first error, or null. No steps: null at once.
     */
    private static void run(BackendLease lease, List<String> steps, Consumer<ErrPacket> after) {
        if (steps.isEmpty()) {
            after.accept(null);
            return;
        }
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
