package io.shardgate.move.binlog;

import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import io.shardgate.move.TableShape;
import java.io.Serializable;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Groups the events of a binary log stream into transactions and hands each committed one's changed
 * primary keys of the watched tables, with the position after it, to a consumer, in log order.
 *
 * <p>A group starts at a GTID event (MariaDB's, or MySQL's followed by a {@code BEGIN} QUERY) or at
 * a {@code BEGIN} QUERY (servers without GTIDs); it ends at an XID event, a {@code COMMIT} or {@code
 * ROLLBACK} QUERY (non-transactional changes stay despite a ROLLBACK: re-reading those rows is
 * harmless, missing them is not), or, for a group of one statement (DDL), at that QUERY. Between
 * groups the position moves with every event, so a caller waiting for the source's current position
 * after {@code FLUSH BINARY LOGS} sees it reached.
 *
 * <p>An XA transaction's rows are in the group that ends at its XA PREPARE, but they commit (or roll
 * back) in a later group, {@code XA COMMIT xid}: the keys are held until then, and while any XA
 * transaction is prepared, the position handed out (the resume point) stays at the start of the
 * oldest one's group, so a tail resumed from it reads the prepared rows again.
 *
 * <p>Refuse by default: anything that could hide a changed row stops the stream with an {@link
 * IllegalStateException} naming it — a logged statement naming a watched table (DDL, statement
 * format), a row event outside a transaction, the end of an XA transaction prepared before the
 * stream's start (its rows are unknown), compressed or unknown events, an incident, a watched table
 * whose logged columns differ from its shape.
 *
 * <p>Not thread-safe: one instance per stream, fed on the binary log client's thread.
 */
final class TransactionCollector {
    /** LOG_EVENT_IGNORABLE_F: a replica that does not know the event type may skip it. */
    private static final int IGNORABLE = 0x80;

    private final Map<String, PrimaryKeyValues> watched = new HashMap<>();
    private final Consumer<ChangedKeys> consumer;
    /** TABLE_MAP ids of watched tables in the current file; ids of other tables are absent. */
    private final Map<Long, PrimaryKeyValues> tableIds = new HashMap<>();

    private String file;
    private BinlogPosition position;
    private boolean groupOpen;
    private boolean inTransaction;
    /** Where the open group started: the resume point while it is open. */
    private BinlogPosition groupStart;
    /** The id of the open group's XA transaction, from its XA START or XA END. */
    private String xid;
    /** XA transactions prepared and not yet committed or rolled back, by id, in log order. */
    private final Map<String, Prepared> prepared = new LinkedHashMap<>();

    private Map<TableShape, Set<RowKey>> keys = new LinkedHashMap<>();
    private long rows;

    /**
     * @param watched the tables whose changed keys to report; their keys are checked here ({@link
     *     PrimaryKeyValues#of}), so an unsupported one is refused before the stream starts
     * @param start where the stream starts (a position an earlier stream handed out)
     */
    TransactionCollector(Collection<TableShape> watched, BinlogPosition start, Consumer<ChangedKeys> consumer) {
        for (TableShape table : watched) {
            this.watched.put(name(table.schema(), table.table()), PrimaryKeyValues.of(table));
        }
        this.consumer = consumer;
        this.file = start.file();
        this.position = start;
    }

    /** The position after the last transaction handed out, or after the last event between transactions. */
    BinlogPosition position() {
        return position;
    }

    /** Row images of watched tables seen in handed-out and open transactions. */
    long rows() {
        return rows;
    }

    List<TableShape> watched() {
        return watched.values().stream().map(PrimaryKeyValues::table).toList();
    }

    void accept(Event event) {
        EventType type = event.getHeader().getEventType();
        switch (type) {
            case ROTATE -> rotate((RotateEventData) event.getData());
            case FORMAT_DESCRIPTION, MARIADB_GTID_LIST, BINLOG_CHECKPOINT, PREVIOUS_GTIDS, STOP -> between(event);
            case HEARTBEAT, ANNOTATE_ROWS, ROWS_QUERY, INTVAR, RAND, USER_VAR, TRANSACTION_CONTEXT, VIEW_CHANGE -> {
                // no rows, no boundary; a heartbeat's position is the server's, not ours
            }
            case MARIADB_GTID -> {
                MariadbGtidEventData gtid = (MariadbGtidEventData) event.getData();
                open(type);
                inTransaction = (gtid.getFlags() & MariadbGtidEventData.FL_STANDALONE) == 0;
            }
            case GTID, ANONYMOUS_GTID -> open(type);
            case QUERY -> query(event, (QueryEventData) event.getData());
            case TABLE_MAP -> tableMap((TableMapEventData) event.getData());
            case WRITE_ROWS, EXT_WRITE_ROWS -> {
                WriteRowsEventData data = (WriteRowsEventData) event.getData();
                images(type, data.getTableId(), data.getIncludedColumns(), data.getRows());
            }
            case DELETE_ROWS, EXT_DELETE_ROWS -> {
                DeleteRowsEventData data = (DeleteRowsEventData) event.getData();
                images(type, data.getTableId(), data.getIncludedColumns(), data.getRows());
            }
            case UPDATE_ROWS, EXT_UPDATE_ROWS -> update(type, (UpdateRowsEventData) event.getData());
            case XID -> {
                requireTransaction(type);
                commit(event);
            }
            case XA_PREPARE -> prepare(event);
            case INCIDENT ->
                throw new IllegalStateException(
                        "the source's binary log records an incident at " + here(event) + ": events may be missing");
            case UNKNOWN -> {
                if ((((EventHeaderV4) event.getHeader()).getFlags() & IGNORABLE) == 0) {
                    throw new IllegalStateException("an event the catch-up does not know (not marked ignorable) at "
                            + here(event) + " (compressed events? log_bin_compress must be OFF)");
                }
            }
            default ->
                throw new IllegalStateException("a " + type + " event at " + here(event)
                        + ": the catch-up does not read it (compressed transactions, partial JSON updates and"
                        + " LOAD DATA in statement format are not followed)");
        }
    }

    private void rotate(RotateEventData data) {
        if (groupOpen) {
            throw new IllegalStateException(
                    "the binary log rotated to " + data.getBinlogFilename() + " inside a transaction");
        }
        file = data.getBinlogFilename();
        tableIds.clear(); // table ids are per file
        advance(new BinlogPosition(file, data.getBinlogPosition()));
    }

    private void between(Event event) {
        long next = ((EventHeaderV4) event.getHeader()).getNextPosition();
        if (!groupOpen && next > 0) {
            advance(new BinlogPosition(file, next));
        }
    }

    private void open(EventType type) {
        if (groupOpen) {
            throw new IllegalStateException("a " + type + " event inside an open transaction at " + file);
        }
        groupOpen = true;
        inTransaction = false;
        groupStart = position;
        xid = null;
        keys = new LinkedHashMap<>();
    }

    private void query(Event event, QueryEventData data) {
        String sql = data.getSql();
        LoggedStatement.Control control = LoggedStatement.control(sql);
        switch (control) {
            case BEGIN -> {
                if (inTransaction && !keys.isEmpty()) {
                    throw new IllegalStateException("BEGIN inside a transaction that changed rows at " + here(event));
                }
                if (!groupOpen) {
                    groupStart = position;
                    xid = null;
                }
                groupOpen = true;
                inTransaction = true;
            }
            case COMMIT, ROLLBACK -> {
                requireTransaction(EventType.QUERY);
                commit(event);
            }
            case WITHIN -> {
                requireTransaction(EventType.QUERY);
                List<String> words = LoggedStatement.tokens(sql);
                if (words.size() > 1 && words.get(0).equalsIgnoreCase("XA")) {
                    // XA START, BEGIN or END: MariaDB logs no XA START (its GTID event carries the id)
                    xid = LoggedStatement.xid(sql);
                }
            }
            case XA_END_OF_PREPARED -> {
                if (inTransaction) {
                    commit(event); // XA COMMIT ... ONE PHASE ends the transaction that holds its rows
                } else {
                    endPrepared(event, sql);
                }
            }
            case OTHER -> {
                Optional<TableShape> named = LoggedStatement.names(sql, data.getDatabase(), watched());
                if (named.isPresent()) {
                    throw new IllegalStateException("the source logged a statement on "
                            + named.get().qualifiedName() + " that is being moved (DDL, or a session in"
                            + " statement format): " + abbreviate(sql) + " at " + here(event));
                }
                if (!inTransaction) {
                    groupOpen = true; // a statement of its own: its own group, even without a GTID event
                    commit(event);
                }
            }
        }
    }

    private void tableMap(TableMapEventData data) {
        PrimaryKeyValues table = watched.get(name(data.getDatabase(), data.getTable()));
        if (table == null) {
            tableIds.remove(data.getTableId());
            return;
        }
        int logged = data.getColumnTypes().length;
        int shaped = table.table().columns().size();
        if (logged != shaped) {
            throw new IllegalStateException("the binary log holds " + logged + " columns of "
                    + table.table().qualifiedName() + ", its shape " + shaped
                    + ": the table changed since the move read it");
        }
        tableIds.put(data.getTableId(), table);
    }

    private void images(EventType type, long tableId, BitSet included, List<Serializable[]> images) {
        requireTransaction(type);
        PrimaryKeyValues table = tableIds.get(tableId);
        if (table == null) {
            return;
        }
        Set<RowKey> changed = keys.computeIfAbsent(table.table(), t -> new LinkedHashSet<>());
        for (Serializable[] image : images) {
            changed.add(table.key(image, included));
            rows++;
        }
    }

    private void update(EventType type, UpdateRowsEventData data) {
        requireTransaction(type);
        PrimaryKeyValues table = tableIds.get(data.getTableId());
        if (table == null) {
            return;
        }
        Set<RowKey> changed = keys.computeIfAbsent(table.table(), t -> new LinkedHashSet<>());
        for (Map.Entry<Serializable[], Serializable[]> row : data.getRows()) {
            // a primary key change is a row leaving one key and arriving at another: both are re-read
            changed.add(table.key(row.getKey(), data.getIncludedColumnsBeforeUpdate()));
            changed.add(table.key(row.getValue(), data.getIncludedColumns()));
            rows++;
        }
    }

    private void requireTransaction(EventType type) {
        if (!inTransaction) {
            throw new IllegalStateException("a " + type + " event outside a transaction in " + file + " after "
                    + position + ": the stream did not start at a transaction boundary");
        }
    }

    private void commit(Event event) {
        BinlogPosition after = closeGroup(event);
        Map<TableShape, Set<RowKey>> changed = keys;
        keys = new LinkedHashMap<>();
        consumer.accept(ChangedKeys.of(resumePoint(after), changed));
    }

    /**
     * An XA PREPARE ends its group, but its rows commit (or not) later, in a group of their own: the
     * keys wait for that group, and until then no resume point passes this group's start, so a tail
     * resumed from any handed-out position sees the prepared rows again.
     */
    private void prepare(Event event) {
        requireTransaction(EventType.XA_PREPARE);
        if (xid == null) {
            throw new IllegalStateException("an XA PREPARE without an XA END at " + here(event));
        }
        prepared.put(xid, new Prepared(groupStart, keys));
        keys = new LinkedHashMap<>();
        closeGroup(event);
    }

    /** XA COMMIT or XA ROLLBACK of a prepared transaction: hands out its keys (none after a rollback). */
    private void endPrepared(Event event, String sql) {
        String id = LoggedStatement.xid(sql);
        Prepared ended = prepared.remove(id);
        if (ended == null) {
            throw new IllegalStateException("the XA transaction " + id + " ends at " + here(event)
                    + " but was prepared before the tail's start, so the rows it changed are unknown: start the"
                    + " tail from a position before its XA PREPARE, or when XA RECOVER lists no transaction");
        }
        boolean committed = LoggedStatement.tokens(sql).get(1).equalsIgnoreCase("COMMIT");
        groupOpen = true; // a group of its own, with or without a GTID event
        keys = committed ? ended.keys() : new LinkedHashMap<>();
        commit(event);
    }

    /** Ends the open group at {@code event}; the position after it. */
    private BinlogPosition closeGroup(Event event) {
        long next = ((EventHeaderV4) event.getHeader()).getNextPosition();
        BinlogPosition after = next > 0 ? new BinlogPosition(file, next) : position;
        groupOpen = false;
        inTransaction = false;
        xid = null;
        advance(after);
        return after;
    }

    /** {@code after}, or the start of the oldest XA transaction still prepared when that is earlier. */
    private BinlogPosition resumePoint(BinlogPosition after) {
        return prepared.values().stream()
                .map(Prepared::start)
                .filter(start -> !start.reached(after))
                .findFirst()
                .orElse(after);
    }

    /** A prepared XA transaction: where its group started and the keys it changed. */
    private record Prepared(BinlogPosition start, Map<TableShape, Set<RowKey>> keys) {}

    private void advance(BinlogPosition next) {
        if (next.reached(position)) {
            position = next;
        }
    }

    private String here(Event event) {
        return file + ":" + ((EventHeaderV4) event.getHeader()).getPosition();
    }

    private static String abbreviate(String sql) {
        String s = sql.strip();
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    private static String name(String schema, String table) {
        return schema + "." + table;
    }
}
