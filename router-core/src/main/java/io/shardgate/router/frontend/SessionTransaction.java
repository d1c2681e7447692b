package io.shardgate.router.frontend;

import io.shardgate.router.twophase.DecisionTable;
import io.shardgate.router.twophase.Xid;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client session's explicit transaction as the router tracks it: the START TRANSACTION / BEGIN
 * text, replayed on each hostgroup the transaction spreads to, and whether a backend has run it.
 * A plain BEGIN is answered by the router ({@link DeferredBegin}) and reaches each hostgroup with
 * the session's first statement there (a transaction on one shard then costs one BEGIN on that
 * shard, not one on the home hostgroup too); until a statement has run, the transaction exists
 * only here. Savepoints are replayed too: a hostgroup the transaction reaches after {@code
 * SAVEPOINT sp} gets {@code SAVEPOINT sp} right after its BEGIN, so a later {@code ROLLBACK TO
 * SAVEPOINT sp}, sent to every hostgroup the transaction reached, undoes its work there as MySQL
 * would (mysqldump --single-transaction rolls back to a savepoint after each table). Event-loop
 * confined, like its session.
 */
public final class SessionTransaction {
    private static final Pattern SAVEPOINT = Pattern.compile(
            "^(SAVEPOINT|ROLLBACK (?:WORK )?TO(?: SAVEPOINT)?|RELEASE SAVEPOINT) (`(?:[^`]|``)+`|\\S+)$",
            Pattern.CASE_INSENSITIVE);

    /** The BEGIN text of the open explicit transaction, or null. */
    private String start;
    /**
     * The id of a two_phase transaction, or null: its first hostgroup becomes the metadata manager
     * (a plain BEGIN there), each other one begins its branch with XA START.
     */
    private Xid xid;
    /** Where a two_phase transaction's manager keeps its decision (created before its BEGIN). */
    private DecisionTable decisions;
    /** Whether a backend has run {@link #start}. */
    private boolean opened;
    /** The savepoints set in the transaction, oldest first, as written (backticks kept). */
    private final List<String> savepoints = new ArrayList<>();
    /** Hostgroups where a statement of the XA transaction may have changed data (see {@link #ran}). */
    private final Set<Integer> writers = new HashSet<>();
    /** Hostgroups where the XA transaction ran a statement known to change no data. */
    private final Set<Integer> readers = new HashSet<>();

    /** The BEGIN text of the open explicit transaction, replayed where it spreads; null outside one. */
    public String start() {
        return start;
    }

    /** An explicit START TRANSACTION / BEGIN runs on the home hostgroup: spread it where statements go. */
    public void started(String sql) {
        start = sql;
        xid = null;
        decisions = null;
        opened = true;
        savepoints.clear();
        writers.clear();
        readers.clear();
    }

    /**
     * A plain BEGIN answered by the router: {@code sql} runs on each hostgroup before the session's
     * first statement there; in a two_phase transaction ({@code xid} not null) only on the first
     * one, its metadata manager, and {@code XA START} of {@code xid} on the others.
     */
    public void declared(String sql, Xid xid, DecisionTable decisions) {
        start = sql;
        this.xid = xid;
        this.decisions = decisions;
        opened = false;
        savepoints.clear();
        writers.clear();
        readers.clear();
    }

    /** Whether the BEGIN was answered by the router and no backend has begun it yet. */
    public boolean onlyDeclared() {
        return start != null && !opened;
    }

    /** Whether a backend runs the transaction: it ends with the last connection that has it open. */
    boolean opened() {
        return start != null && opened;
    }

    /** A statement of the transaction got its connection, with the BEGIN run there if it was needed. */
    public void reached() {
        if (start != null && !opened) {
            opened = true;
        }
    }

    /**
     * A statement of the XA transaction got its connection on {@code hostgroup}; {@code writes}
     * unless it is known to change no data ({@link io.shardgate.router.twophase.ReadOnlyStatement}).
     */
    public void ran(int hostgroup, boolean writes) {
        (writes ? writers : readers).add(hostgroup);
    }

    /** Whether a statement that may change data ran on {@code hostgroup}'s branch (see {@link #ran}). */
    public boolean wrote(int hostgroup) {
        return writers.contains(hostgroup);
    }

    /**
     * Whether a statement on {@code hostgroup} whose connection has {@code transactionOpen} needs the
     * {@link #beginSteps}: inside the transaction, unless that connection has it open already
     * (asked all the same while a two_phase transaction has no manager: the first hostgroup asked becomes it).
     */
    public boolean mayBegin(boolean transactionOpen) {
        return start != null && (!transactionOpen || (xid != null && !xid.hasManager()));
    }

    /**
     * Hostgroups whose branch ran statements and every one of them is known to change no data: they
     * need no second phase. A branch some other path ran a statement on is not among them (unknown
     * counts as a write).
     */
    public Set<Integer> readOnlyBranches() {
        Set<Integer> out = new HashSet<>(readers);
        out.removeAll(writers);
        return out;
    }

    /**
     * The id of the open two_phase transaction, or null; its manager is set once the first
     * hostgroup was asked for its {@link #beginSteps}.
     */
    public Xid xid() {
        return xid;
    }

    /**
     * What {@code hostgroup}, reached by the transaction, runs before the statement: the BEGIN, then
     * a SAVEPOINT for each savepoint set so far; null outside a transaction. In a two_phase
     * transaction the first hostgroup asked becomes its metadata manager: the BEGIN there (after
     * the decision table's creation, the first time), XA START of its branch everywhere else.
     */
    public List<String> beginSteps(int hostgroup) {
        if (start == null) {
            return null;
        }
        List<String> steps = new ArrayList<>(3 + savepoints.size());
        if (xid != null && !xid.hasManager()) {
            xid = xid.withManager(hostgroup);
        }
        if (xid == null) {
            steps.add(start);
        } else if (xid.manager() == hostgroup) {
            steps.addAll(decisions.beforeManagerBegin(hostgroup));
            steps.add(start);
        } else {
            steps.add("XA START " + xid.sql(hostgroup));
        }
        savepoints.forEach(name -> steps.add("SAVEPOINT " + name));
        return steps;
    }

    /**
     * Follows {@code SAVEPOINT sp}, {@code ROLLBACK TO SAVEPOINT sp} and {@code RELEASE SAVEPOINT
     * sp} ({@code digestText}) as MySQL does: setting one again moves it to the end, rolling back to
     * one drops those set after it, releasing one drops it and those after it.
     */
    public void savepointStatement(String digestText) {
        Matcher m = SAVEPOINT.matcher(digestText);
        if (start == null || !m.matches()) {
            return;
        }
        String verb = m.group(1).toUpperCase(Locale.ROOT);
        String name = m.group(2);
        int at = indexOf(name);
        if (verb.equals("SAVEPOINT")) {
            if (at >= 0) {
                savepoints.remove(at);
            }
            savepoints.add(name);
        } else if (at >= 0) {
            int keep = verb.startsWith("ROLLBACK") ? at + 1 : at;
            savepoints.subList(keep, savepoints.size()).clear();
        }
    }

    /** The savepoints set so far, oldest first. */
    List<String> savepoints() {
        return List.copyOf(savepoints);
    }

    private int indexOf(String name) {
        String bare = unquoted(name);
        for (int i = 0; i < savepoints.size(); i++) {
            if (unquoted(savepoints.get(i)).equalsIgnoreCase(bare)) { // savepoint names ignore case
                return i;
            }
        }
        return -1;
    }

    private static String unquoted(String name) {
        return name.startsWith("`") ? name.substring(1, name.length() - 1).replace("``", "`") : name;
    }

    /** The transaction is over (committed, rolled back, or ended by a reset). */
    public void end() {
        start = null;
        xid = null;
        decisions = null;
        opened = false;
        savepoints.clear();
        writers.clear();
        readers.clear();
    }
}
