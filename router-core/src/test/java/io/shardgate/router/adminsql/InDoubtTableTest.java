package io.shardgate.router.adminsql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.router.net.TextResultSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InDoubtTableTest {
    private final InDoubtTable table = new InDoubtTable(null);

    @Test
    void listsItsColumnsEvenWhenEmpty() {
        AdminResult.Rows rows = table.rows();
        assertThat(rows.columns())
                .extracting(TextResultSet.Column::name)
                .containsExactly("xid", "hostgroup", "decision", "owner_alive", "prepared_ms", "state");
        assertThat(rows.rows()).isEmpty();
    }

    @Test
    void resolutionByHandNamesOneTransactionAndAnOutcome() {
        assertThatThrownBy(() -> table.update(Map.of("state", "x"), Map.of("xid", "sg.1.2.3")))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1288));
        assertThatThrownBy(() -> table.update(Map.of("outcome", "commit"), Map.of()))
                .hasMessageContaining("WHERE xid =");
        assertThatThrownBy(() -> table.update(Map.of("outcome", "maybe"), Map.of("xid", "sg.1.2.3")))
                .isInstanceOfSatisfying(
                        AdminSqlException.class, e -> assertThat(e.code()).isEqualTo(1366));
        assertThatThrownBy(() -> table.update(Map.of("outcome", "commit"), Map.of("xid", "sg.1.2.3")))
                .hasMessageContaining("no two-phase resolver");
    }
}
