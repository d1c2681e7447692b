package io.shardgate.move.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.FormatDescriptionEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.XidEventData;
import io.shardgate.move.TableShape;
import io.shardgate.move.TableShape.Column;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Event sequences as MariaDB and MySQL write them, grouped into transactions without a server. */
class TransactionCollectorTest {
    private static final TableShape ITEMS = new TableShape(
            "db",
            "items",
            List.of(new Column("id", "int", "int(10) unsigned", null), new Column("v", "int", "int(11)", null)),
            List.of(0));
    private static final BitSet BOTH = bits(0, 1);

    private final List<ChangedKeys> out = new ArrayList<>();
    private final TransactionCollector collector =
            new TransactionCollector(List.of(ITEMS), BinlogPosition.parse("bin.000001:100"), out::add);

    @Test
    void aMariaDbTransactionIsHandedOutAtItsXidWithItsKeysAndTheNextPosition() {
        collector.accept(gtid(0, 150));
        collector.accept(tableMap(7, "db", "items", 2, 200));
        collector.accept(write(7, 250, row(1, 10), row(-1, 11)));
        collector.accept(update(7, 300, row(1, 10), row(2, 10)));
        assertThat(out).as("nothing before the commit").isEmpty();
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000001:100"));
        collector.accept(event(EventType.XID, new XidEventData(), 331));

        assertThat(out).hasSize(1);
        assertThat(out.get(0).position()).isEqualTo(BinlogPosition.parse("bin.000001:331"));
        assertThat(out.get(0).keys())
                .isEqualTo(Map.of(ITEMS, List.of(RowKey.of(1L), RowKey.of(4294967295L), RowKey.of(2L))));
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000001:331"));
        assertThat(collector.rows()).isEqualTo(3);
    }

    @Test
    void aMySqlStyleBeginCommitTransactionOnAnotherTableOnlyMovesThePosition() {
        collector.accept(query("BEGIN", "db", 150));
        collector.accept(tableMap(8, "db", "other", 5, 200));
        collector.accept(write(8, 250, row(1, 10)));
        collector.accept(query("COMMIT", "db", 300));
        assertThat(out).containsExactly(ChangedKeys.positionOnly(BinlogPosition.parse("bin.000001:300")));
    }

    @Test
    void aStandaloneStatementIsAGroupOfItsOwnAndDdlOnAWatchedTableStopsTheStream() {
        collector.accept(gtid(MariadbGtidEventData.FL_STANDALONE, 150));
        collector.accept(query("CREATE TABLE t2 (id INT PRIMARY KEY)", "db", 250));
        assertThat(out).containsExactly(ChangedKeys.positionOnly(BinlogPosition.parse("bin.000001:250")));

        collector.accept(gtid(MariadbGtidEventData.FL_STANDALONE, 300));
        assertThatThrownBy(() -> collector.accept(query("TRUNCATE TABLE items", "db", 350)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("`db`.`items`")
                .hasMessageContaining("TRUNCATE TABLE items");
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000001:250"));
    }

    @Test
    void rotationMovesToTheNewFileAndEventsBetweenTransactionsMoveThePositionForwardOnly() {
        collector.accept(rotate("bin.000001", 100, 0)); // the artificial one at the start
        collector.accept(event(EventType.FORMAT_DESCRIPTION, new FormatDescriptionEventData(), 0));
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000001:100"));
        collector.accept(rotate("bin.000002", 4, 180));
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000002:4"));
        collector.accept(event(EventType.FORMAT_DESCRIPTION, new FormatDescriptionEventData(), 256));
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000002:256"));

        collector.accept(gtid(0, 300));
        collector.accept(tableMap(9, "db", "items", 2, 350));
        collector.accept(write(9, 400, row(5, 0)));
        assertThatThrownBy(() -> collector.accept(rotate("bin.000003", 4, 450)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inside a transaction");
    }

    @Test
    void tableIdsAreForgottenAtRotation() {
        collector.accept(query("BEGIN", "db", 150));
        collector.accept(tableMap(9, "db", "items", 2, 200));
        collector.accept(write(9, 250, row(5, 0)));
        collector.accept(event(EventType.XID, new XidEventData(), 280));
        collector.accept(rotate("bin.000002", 4, 300));
        // the same id now maps another table, whose TABLE_MAP we would have seen
        collector.accept(query("BEGIN", "db", 350));
        collector.accept(tableMap(9, "db", "other", 2, 400));
        collector.accept(write(9, 450, row(6, 0)));
        collector.accept(event(EventType.XID, new XidEventData(), 480));
        assertThat(out.get(1).isEmpty()).isTrue();
    }

    @Test
    void anXaTransactionsKeysWaitForItsCommitAndHoldTheResumePointBack() {
        // MariaDB: the prepared group has no XA START (the GTID event carries the id), but an XA END
        collector.accept(gtid(64, 150));
        collector.accept(tableMap(7, "db", "items", 2, 200));
        collector.accept(write(7, 250, row(1, 10)));
        collector.accept(query("XA END X'78',X'',1", "db", 300));
        collector.accept(event(EventType.XA_PREPARE, null, 350));
        assertThat(out).isEmpty();

        collector.accept(gtid(0, 400));
        collector.accept(tableMap(7, "db", "items", 2, 450));
        collector.accept(write(7, 500, row(2, 10)));
        collector.accept(event(EventType.XID, new XidEventData(), 550));
        assertThat(out.get(0).keys(ITEMS)).containsExactly(RowKey.of(2L));
        assertThat(out.get(0).position())
                .as("not past the prepared transaction's start")
                .isEqualTo(BinlogPosition.parse("bin.000001:100"));
        assertThat(collector.position()).isEqualTo(BinlogPosition.parse("bin.000001:550"));

        collector.accept(gtid(MariadbGtidEventData.FL_STANDALONE, 600));
        collector.accept(query("XA COMMIT X'78', X'', 1", "db", 650));
        assertThat(out.get(1).keys(ITEMS)).containsExactly(RowKey.of(1L));
        assertThat(out.get(1).position()).isEqualTo(BinlogPosition.parse("bin.000001:650"));

        collector.accept(gtid(MariadbGtidEventData.FL_STANDALONE, 700));
        assertThatThrownBy(() -> collector.accept(query("XA ROLLBACK X'79',X'',1", "db", 750)))
                .hasMessageContaining("prepared before the tail's start");
    }

    @Test
    void refusesWhatCouldHideChangedRows() {
        assertThatThrownBy(() -> collector.accept(write(7, 250, row(1, 10))))
                .as("rows outside a transaction: the stream did not start at a boundary")
                .hasMessageContaining("outside a transaction");

        collector.accept(query("BEGIN", "db", 150));
        assertThatThrownBy(() -> collector.accept(tableMap(7, "db", "items", 3, 200)))
                .as("a watched table logged with other columns than its shape")
                .hasMessageContaining("3 columns");

        EventHeaderV4 unknown = header(EventType.UNKNOWN, 500);
        assertThatThrownBy(() -> collector.accept(new Event(unknown, null))).hasMessageContaining("does not know");
        unknown.setFlags(0x80);
        collector.accept(new Event(unknown, null)); // marked ignorable: skipped

        assertThatThrownBy(() -> collector.accept(event(EventType.TRANSACTION_PAYLOAD, null, 600)))
                .hasMessageContaining("TRANSACTION_PAYLOAD");
        assertThatThrownBy(() -> collector.accept(event(EventType.INCIDENT, null, 700)))
                .hasMessageContaining("incident");
    }

    private static MariadbGtidEventData gtidData(int flags) {
        MariadbGtidEventData data = new MariadbGtidEventData();
        data.setFlags(flags);
        return data;
    }

    private static Event gtid(int flags, long next) {
        return event(EventType.MARIADB_GTID, gtidData(flags), next);
    }

    private static Event query(String sql, String database, long next) {
        QueryEventData data = new QueryEventData();
        data.setSql(sql);
        data.setDatabase(database);
        return event(EventType.QUERY, data, next);
    }

    private static Event rotate(String file, long position, long next) {
        RotateEventData data = new RotateEventData();
        data.setBinlogFilename(file);
        data.setBinlogPosition(position);
        return event(EventType.ROTATE, data, next);
    }

    private static Event tableMap(long id, String database, String table, int columns, long next) {
        TableMapEventData data = new TableMapEventData();
        data.setTableId(id);
        data.setDatabase(database);
        data.setTable(table);
        data.setColumnTypes(new byte[columns]);
        return event(EventType.TABLE_MAP, data, next);
    }

    private static Event write(long tableId, long next, Serializable[]... rows) {
        WriteRowsEventData data = new WriteRowsEventData();
        data.setTableId(tableId);
        data.setIncludedColumns(BOTH);
        data.setRows(List.of(rows));
        return event(EventType.EXT_WRITE_ROWS, data, next);
    }

    private static Event update(long tableId, long next, Serializable[] before, Serializable[] after) {
        UpdateRowsEventData data = new UpdateRowsEventData();
        data.setTableId(tableId);
        data.setIncludedColumnsBeforeUpdate(BOTH);
        data.setIncludedColumns(BOTH);
        data.setRows(List.of(Map.entry(before, after)));
        return event(EventType.UPDATE_ROWS, data, next);
    }

    private static Serializable[] row(int id, int v) {
        return new Serializable[] {id, v};
    }

    private static Event event(EventType type, EventData data, long next) {
        return new Event(header(type, next), data);
    }

    private static EventHeaderV4 header(EventType type, long next) {
        EventHeaderV4 header = new EventHeaderV4();
        header.setEventType(type);
        header.setNextPosition(next);
        header.setEventLength(next == 0 ? 0 : 19);
        return header;
    }

    private static BitSet bits(int... indexes) {
        BitSet bits = new BitSet();
        for (int i : indexes) {
            bits.set(i);
        }
        return bits;
    }
}
