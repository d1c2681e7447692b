package io.shardgate.router.twophase;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Shardgate distributed transaction's id, and how XA names its branches on the shards: one
 * global part ({@code gtrid}) shared by every branch, the hostgroup as the branch qualifier
 * ({@code bqual}, so two hostgroups on one server get distinct branches) and {@link #FORMAT_ID}.
 *
 * <p>The global part is {@code sg.<node>.<epoch>.<sequence>.<manager>}: {@code epoch} is a number
 * ZooKeeper hands each router process once at start (a persistent sequential node), so ids never
 * repeat across routers nor across restarts of one; {@code node} ({@code server.node_id}) is there
 * for the operator's eye; {@code manager} is the hostgroup of the transaction's <em>metadata
 * manager</em>, the first shard it reached, which runs a plain transaction (no XA) and whose
 * commit, with the decision row in it ({@link DecisionTable}), decides the transaction. Any
 * router that finds a prepared branch in {@code XA RECOVER} reads from the id where to look for
 * the decision. A row of {@code XA RECOVER} is recognised as Shardgate's by its format id and the
 * shape of its global part; anything else on a shard (an application's own XA) is left alone.
 *
 * <p>A transaction gets its id at BEGIN, before any shard is reached: {@code manager} is {@link
 * #NO_MANAGER} until then ({@link #withManager}).
 */
public record Xid(long node, long epoch, long sequence, int manager) {
    /** "SG2C" in ASCII: marks the branches Shardgate created. */
    public static final int FORMAT_ID = 0x53473243;
    /** The manager of a transaction that has reached no shard yet. */
    public static final int NO_MANAGER = -1;

    private static final Pattern GTRID = Pattern.compile("sg\\.(\\d{1,18})\\.(\\d{1,18})\\.(\\d{1,18})\\.(\\d{1,10})");
    private static final Pattern BQUAL = Pattern.compile("\\d{1,10}");

    public Xid {
        if (node < 0 || epoch < 0 || sequence < 0 || manager < NO_MANAGER) {
            throw new IllegalArgumentException("xid parts must not be negative");
        }
    }

    /** A transaction whose manager is not chosen yet. */
    public Xid(long node, long epoch, long sequence) {
        this(node, epoch, sequence, NO_MANAGER);
    }

    /** This transaction with {@code hostgroup} as its metadata manager. */
    public Xid withManager(int hostgroup) {
        return new Xid(node, epoch, sequence, hostgroup);
    }

    public boolean hasManager() {
        return manager != NO_MANAGER;
    }

    /**
     * The global transaction id, identical on every shard and the decision row's key; {@code
     * sg.<node>.<epoch>.<sequence>.?} while no manager is chosen (error messages only).
     */
    public String gtrid() {
        return "sg." + node + "." + epoch + "." + sequence + "." + (hasManager() ? String.valueOf(manager) : "?");
    }

    /** The XA id of the branch on {@code hostgroup}, as XA START / END / PREPARE / COMMIT take it. */
    public String sql(int hostgroup) {
        if (!hasManager()) {
            throw new IllegalStateException("transaction " + gtrid() + " has no metadata manager yet");
        }
        return "'" + gtrid() + "','" + hostgroup + "'," + FORMAT_ID;
    }

    @Override
    public String toString() {
        return gtrid();
    }

    /** The transaction of the global id {@code gtrid}, or null when it is not Shardgate's. */
    public static Xid parse(String gtrid) {
        Matcher m = GTRID.matcher(gtrid);
        if (!m.matches()) {
            return null;
        }
        long manager = Long.parseLong(m.group(4));
        if (manager > Integer.MAX_VALUE) {
            return null;
        }
        return new Xid(
                Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), (int) manager);
    }

    /**
     * A prepared branch one row of {@code XA RECOVER} shows: {@code formatID}, {@code gtrid_length},
     * {@code bqual_length} and {@code data} (the two parts one after the other); null when the row
     * is not a Shardgate branch.
     */
    public static Branch branchOf(long formatId, int gtridLength, int bqualLength, String data) {
        if (formatId != FORMAT_ID || data == null || gtridLength < 0 || bqualLength < 0) {
            return null;
        }
        if (data.length() != gtridLength + bqualLength) {
            return null;
        }
        Xid xid = parse(data.substring(0, gtridLength));
        String bqual = data.substring(gtridLength);
        if (xid == null || !BQUAL.matcher(bqual).matches()) {
            return null;
        }
        long hostgroup = Long.parseLong(bqual);
        return hostgroup > Integer.MAX_VALUE ? null : new Branch(xid, (int) hostgroup);
    }

    /** One shard's branch of a Shardgate transaction. */
    public record Branch(Xid xid, int hostgroup) {
        /** The branch's XA id as XA COMMIT / ROLLBACK take it. */
        public String sql() {
            return xid.sql(hostgroup);
        }
    }
}
