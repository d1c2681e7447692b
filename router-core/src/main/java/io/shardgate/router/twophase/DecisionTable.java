package io.shardgate.router.twophase;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The router-owned table on each shard that holds the decisions of the two_phase transactions whose
 * metadata manager the shard is ({@link Xid#manager()}); the SQL the router and the resolver run on
 * it. One row per decided transaction, keyed by its global id:
 *
 * <pre>
 * CREATE TABLE shardgate.twophase_decisions (
 *   id VARBINARY(64) PRIMARY KEY,        -- the xid's gtrid, sg.&lt;node&gt;.&lt;epoch&gt;.&lt;n&gt;.&lt;manager&gt;
 *   outcome VARCHAR(8) NOT NULL,         -- commit | rollback
 *   created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))
 * </pre>
 *
 * <p>The commit row is inserted inside the manager's own transaction and committed with it: that
 * commit <em>is</em> the decision, atomic with the manager's writes. A resolver that finds a branch
 * prepared with no decision fences the transaction by inserting a rollback row in autocommit: the
 * primary key lets only one of the two rows exist (see docs/transactions.md, "Recovery").
 *
 * <p>The table is created with {@code IF NOT EXISTS} the first time this router makes a shard a
 * manager (before that transaction's BEGIN there: DDL would commit it) and by a resolver that
 * fences on a shard without it. Thread-safe.
 */
public final class DecisionTable {
    /** The default name: schema {@code shardgate}, table {@code twophase_decisions}. */
    public static final String DEFAULT_SCHEMA = "shardgate";

    public static final String DEFAULT_TABLE = "twophase_decisions";
    /** ER_DUP_ENTRY: the other decision is there already. */
    public static final int DUPLICATE_KEY = 1062;
    /** ER_LOCK_WAIT_TIMEOUT: the manager's open transaction holds its (commit) row. */
    public static final int LOCK_WAIT_TIMEOUT = 1205;
    /** ER_NO_SUCH_TABLE and ER_BAD_DB_ERROR: no decision was ever written on that shard. */
    public static final Set<Integer> MISSING = Set.of(1146, 1049);

    private final String schema;
    private final String table;
    /** Hostgroups where this router has created the table (or asked to, with a BEGIN). */
    private final Set<Integer> created = ConcurrentHashMap.newKeySet();

    public DecisionTable(String schema, String table) {
        if (!schema.matches("\\w{1,64}") || !table.matches("\\w{1,64}")) {
            throw new IllegalArgumentException("decision table names are letters, digits and _ only");
        }
        this.schema = schema;
        this.table = table;
    }

    public DecisionTable() {
        this(DEFAULT_SCHEMA, DEFAULT_TABLE);
    }

    /** The qualified, quoted name. */
    public String name() {
        return "`" + schema + "`.`" + table + "`";
    }

    /** The statements that create the table where it is missing. */
    public List<String> createSteps() {
        return List.of(
                "CREATE DATABASE IF NOT EXISTS `" + schema + "`",
                "CREATE TABLE IF NOT EXISTS " + name()
                        + " (id VARBINARY(64) PRIMARY KEY, outcome VARCHAR(8) NOT NULL,"
                        + " created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB");
    }

    /**
     * What a shard that becomes a transaction's manager runs before its BEGIN: {@link #createSteps}
     * the first time for {@code hostgroup}, else nothing.
     */
    public List<String> beforeManagerBegin(int hostgroup) {
        return created.add(hostgroup) ? createSteps() : List.of();
    }

    /** The table turned out to be missing on {@code hostgroup} (dropped): create it again next time. */
    public void missing(int hostgroup) {
        created.remove(hostgroup);
    }

    /** Inserts the row deciding {@code xid}'s {@code outcome}. */
    public String insert(Xid xid, Outcome outcome) {
        return "INSERT INTO " + name() + " (id, outcome) VALUES ('" + xid.gtrid() + "', '" + outcome.text() + "')";
    }

    /** Reads the decision of {@code xid}: no row, or one column {@code outcome}. */
    public String select(Xid xid) {
        return "SELECT outcome FROM " + name() + " WHERE id = '" + xid.gtrid() + "'";
    }

    /**
     * Lists at most {@code limit} decisions: id, outcome, and 1 when the row is older than {@code
     * retentionSeconds} (else 0).
     */
    public String list(long retentionSeconds, int limit) {
        return "SELECT id, outcome, created_at < NOW(6) - INTERVAL " + retentionSeconds + " SECOND FROM " + name()
                + " LIMIT " + limit;
    }

    /** Deletes the decisions of {@code ids}, or null when there are none. */
    public String delete(Collection<String> ids) {
        if (ids.isEmpty()) {
            return null;
        }
        List<String> quoted = new ArrayList<>(ids.size());
        for (String id : ids) {
            if (Xid.parse(id) == null) {
                throw new IllegalArgumentException("not a Shardgate transaction id: " + id);
            }
            quoted.add("'" + id + "'");
        }
        return "DELETE FROM " + name() + " WHERE id IN (" + String.join(", ", quoted) + ")";
    }
}
