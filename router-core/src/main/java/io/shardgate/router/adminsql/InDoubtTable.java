package io.shardgate.router.adminsql;

import io.shardgate.router.net.TextResultSet;
import io.shardgate.router.twophase.Outcome;
import io.shardgate.router.twophase.Resolver;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code stats_twophase_in_doubt}: the prepared two-phase branches the resolver's last pass left
 * (docs/transactions.md), and {@code UPDATE stats_twophase_in_doubt SET outcome = 'commit' |
 * 'rollback' WHERE xid = '...'}, which resolves that transaction by hand on every shard.
 */
final class InDoubtTable {
    static final String NAME = "stats_twophase_in_doubt";
    private static final List<String> COLUMNS =
            List.of("xid", "hostgroup", "decision", "owner_alive", "prepared_ms", "state");

    private final Resolver resolver;

    /** {@code resolver} null: the table is empty and cannot be updated (no two-phase resolver runs). */
    InDoubtTable(Resolver resolver) {
        this.resolver = resolver;
    }

    AdminResult.Rows rows() {
        List<TextResultSet.Column> columns = new ArrayList<>();
        for (String name : COLUMNS) {
            columns.add(
                    name.equals("hostgroup") || name.equals("owner_alive") || name.equals("prepared_ms")
                            ? TextResultSet.Column.integer(name)
                            : TextResultSet.Column.text(name));
        }
        List<List<Object>> rows = new ArrayList<>();
        if (resolver != null) {
            for (Resolver.InDoubt d : resolver.unresolved()) {
                rows.add(List.of(
                        d.xid(),
                        (long) d.hostgroup(),
                        d.decision(),
                        d.ownerAlive() ? 1L : 0L,
                        d.preparedMillis(),
                        d.state()));
            }
        }
        return new AdminResult.Rows(columns, rows);
    }

    /** Resolves the transaction {@code where} names with the {@code outcome} set; the branches resolved. */
    long update(Map<String, Object> set, Map<String, Object> where) {
        if (!set.keySet().equals(Set.of("outcome"))) {
            throw new AdminSqlException(
                    1288,
                    "The target table " + NAME + " of the UPDATE is updatable in its outcome"
                            + " column only: SET outcome = 'commit' or 'rollback' WHERE xid = '...'");
        }
        if (!where.keySet().equals(Set.of("xid")) || !(where.get("xid") instanceof String xid)) {
            throw new AdminSqlException(1105, "name one transaction: WHERE xid = 'sg.<node>.<epoch>.<n>.<manager>'");
        }
        Outcome outcome = set.get("outcome") instanceof String text
                ? Outcome.named(text.trim().toLowerCase(Locale.ROOT))
                : null;
        if (outcome == null) {
            throw new AdminSqlException(
                    1366, "Incorrect value '" + set.get("outcome") + "' for column 'outcome': commit or rollback");
        }
        if (resolver == null) {
            throw new AdminSqlException(1105, "no two-phase resolver runs on this router");
        }
        try {
            return resolver.resolve(xid, outcome);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new AdminSqlException(1105, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminSqlException(1105, "interrupted while resolving " + xid);
        } catch (Exception e) {
            throw new AdminSqlException(1105, "resolving " + xid + " failed: " + e);
        }
    }
}
