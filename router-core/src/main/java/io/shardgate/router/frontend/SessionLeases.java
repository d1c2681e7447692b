package io.shardgate.router.frontend;

import io.netty.channel.EventLoop;
import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.session.DiagnosticsEffect;
import io.shardgate.router.session.PinReason;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A client session's leases, one per hostgroup it has used: a statement routed to hostgroup
 * {@code h} borrows through {@code get(h)}, so a transaction that touched several shards holds
 * one connection on each. Reads that may run on a replica borrow through {@code reader(h)}, a
 * second lease of the hostgroup that picks a reader per statement and never holds a connection
 * between statements. Created on first use; runs on the session's event loop.
 */
public final class SessionLeases {
    private final Hostgroups hostgroups;
    private final EventLoop loop;
    private final CommandInFlight owner;
    private final SessionTransaction transaction;
    /** Few hostgroups per session: a list beats a map here. */
    private final List<BackendLease> leases = new ArrayList<>(2);

    private ConnectionKind kind;
    /** The lease of the last statement: its status flags are the session's. */
    private BackendLease last;
    /**
     * The last statement's diagnostics are nowhere to read: it ran on several shards or the router
     * answered it (cache, refusal, its own error), or its connection was lost, so SHOW WARNINGS is
     * refused rather than guessed. Only a statement that certainly replaces the area ends it.
     */
    private boolean diagnosticsUnknown;

    SessionLeases(
            Hostgroups hostgroups,
            EventLoop loop,
            ConnectionKind kind,
            CommandInFlight owner,
            SessionTransaction transaction) {
        this.hostgroups = hostgroups;
        this.loop = loop;
        this.kind = kind;
        this.owner = owner;
        this.transaction = transaction;
    }

    /** The writer lease of hostgroup {@code id}, or null when no such hostgroup exists. */
    public BackendLease get(int id) {
        return lease(id, false);
    }

    /** The reader lease of hostgroup {@code id} (see {@link ReadWriteSplit}), or null. */
    public BackendLease reader(int id) {
        return lease(id, true);
    }

    private BackendLease lease(int id, boolean reads) {
        BackendLease known = find(id, reads);
        if (known != null) {
            // a hostgroup a newer configuration replaced or removed: what the lease holds finishes
            // there, anything new borrows from its successor (one volatile read per statement)
            if (!known.hostgroup().retired() || known.current() != null || hostgroups.get(id) == null) {
                return used(known);
            }
            leases.remove(known);
        }
        Hostgroup hostgroup = hostgroups.get(id);
        if (hostgroup == null) {
            // removed by the version that just came in: a statement planned under the previous
            // version still finishes on it while it drains
            hostgroup = hostgroups.draining(id);
        }
        if (hostgroup == null) {
            return null;
        }
        BackendLease lease = new BackendLease(hostgroup, reads, loop, kind, owner);
        leases.add(lease);
        return used(lease);
    }

    /** The writer lease of hostgroup {@code id} if the session has used it, else null. */
    public BackendLease find(int id) {
        return find(id, false);
    }

    private BackendLease find(int id, boolean reads) {
        for (int i = 0; i < leases.size(); i++) { // indexed: no iterator per statement (allocation guard)
            BackendLease lease = leases.get(i);
            if (lease.hostgroup().id() == id && lease.reads() == reads) {
                return lease;
            }
        }
        return null;
    }

    /** Leases running a branch of the session's two_phase transaction (see {@link XaCommit#BRANCH}). */
    public List<BackendLease> xaBranches() {
        List<BackendLease> out = new ArrayList<>(leases.size());
        for (BackendLease lease : leases) {
            if (!lease.reads() && lease.pins().contains(PinReason.XA_BRANCH)) {
                out.add(lease);
            }
        }
        return out;
    }

    /** Backend connections the session holds right now (pinned or mid-statement). */
    int held() {
        int n = 0;
        for (BackendLease lease : leases) {
            if (lease.current() != null) {
                n++;
            }
        }
        return n;
    }

    private BackendLease used(BackendLease lease) {
        last = lease;
        return lease;
    }

    /** Every lease created so far. */
    public List<BackendLease> all() {
        return leases;
    }

    /** Leases whose connection has a transaction open (or autocommit off), other than {@code except}. */
    public List<BackendLease> inTransaction(BackendLease except) {
        List<BackendLease> out = new ArrayList<>(leases.size());
        for (BackendLease lease : leases) {
            if (lease != except && lease.inTransaction()) {
                out.add(lease);
            }
        }
        return out;
    }

    /**
     * Whether a held connection's server has a transaction open (SERVER_STATUS_IN_TRANS). Unlike
     * {@link #inTransaction}, autocommit off alone does not count: after COMMIT the server has none
     * until the next statement begins one by itself.
     */
    public boolean serverTransactionOpen() {
        for (BackendLease lease : leases) {
            if (lease.current() != null && (lease.statusFlags() & ServerStatus.SERVER_STATUS_IN_TRANS) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Status flags for a reply the router makes itself: the last lease's, plus any open transaction. */
    public int statusFlags() {
        int flags = last != null ? last.statusFlags() : ServerStatus.SERVER_STATUS_AUTOCOMMIT;
        if (transaction.onlyDeclared()) { // a BEGIN the router answered: the session is in a transaction
            flags |= ServerStatus.SERVER_STATUS_IN_TRANS;
        }
        for (int i = 0; i < leases.size(); i++) { // indexed: no iterator per statement
            BackendLease lease = leases.get(i);
            if ((lease.statusFlags() & ServerStatus.SERVER_STATUS_IN_TRANS) != 0 && lease.current() != null) {
                flags |= ServerStatus.SERVER_STATUS_IN_TRANS;
            }
        }
        return flags;
    }

    /** Why the session holds connections (for diagnosis). */
    public Set<PinReason> pins() {
        EnumSet<PinReason> all = EnumSet.noneOf(PinReason.class);
        leases.forEach(l -> all.addAll(l.pins()));
        return all;
    }

    /** What the session's connections are opened as (result format, character set). */
    ConnectionKind kind() {
        return kind;
    }

    void kind(ConnectionKind kind) {
        this.kind = kind;
        leases.forEach(l -> l.kind(kind));
    }

    /**
     * A statement ended on {@code on}, {@code raised} a condition or not: whether the diagnostics
     * another connection holds, or the unknown state, are still the session's ({@link DiagnosticsArea}).
     */
    void statementEnded(BackendLease on, boolean raised, DiagnosticsEffect effect) {
        boolean heldElsewhere = false;
        for (BackendLease lease : leases) {
            heldElsewhere |= lease != on && lease.holdsDiagnostics();
        }
        switch (DiagnosticsArea.after(heldElsewhere, raised, effect)) {
            case UNCHANGED -> {}
            case STATEMENTS -> {
                diagnosticsUnknown = false;
                for (BackendLease lease : leases) {
                    if (lease != on) {
                        lease.endDiagnosticsHold();
                    }
                }
            }
            case UNKNOWN -> diagnosticsUnknown();
        }
    }

    /**
     * COM_RESET_CONNECTION or COM_CHANGE_USER: the server session, and its diagnostics area, start
     * over (the holds ended with {@link #clearStickyPins}).
     */
    void diagnosticsStartOver() {
        diagnosticsUnknown = false;
    }

    /** The statement in progress leaves diagnostics no single server session holds. */
    public void diagnosticsUnknown() {
        diagnosticsUnknown = true;
        leases.forEach(BackendLease::endDiagnosticsHold);
    }

    /** True when the last statement's diagnostics cannot be shown (see {@link #diagnosticsUnknown()}). */
    public boolean diagnosticsLost() {
        return diagnosticsUnknown;
    }

    /**
     * Whether a statement on {@code lease} reads the session's warning and error counts
     * ({@code @@warning_count} beside other things): not when they are unknown or held by another
     * connection, where that lease's server session has other counts.
     */
    public boolean diagnosticsReadableOn(BackendLease lease) {
        BackendLease holder = diagnosticsHolder();
        return !diagnosticsUnknown && (holder == null || holder == lease);
    }

    /** The lease whose connection holds the last statement's warnings or error, or null. */
    public BackendLease diagnosticsHolder() {
        for (int i = 0; i < leases.size(); i++) { // indexed: no iterator per statement
            BackendLease lease = leases.get(i);
            if (lease.holdsDiagnostics()) {
                return lease;
            }
        }
        return null;
    }

    void clearStickyPins() {
        leases.forEach(BackendLease::clearStickyPins);
    }

    void releaseIfFree() {
        leases.forEach(BackendLease::releaseIfFree);
    }

    void discard() {
        leases.forEach(BackendLease::discard);
    }

    void close() {
        leases.forEach(BackendLease::close);
    }
}
