package io.shardgate.move.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BinlogPositionTest {

    @Test
    void ordersByFileSequenceNumberThenPosition() {
        List<BinlogPosition> positions = new ArrayList<>(List.of(
                BinlogPosition.parse("mysql-bin.000010:4"),
                BinlogPosition.parse("mysql-bin.000009:999999"),
                BinlogPosition.parse("mysql-bin.000010:120"),
                BinlogPosition.parse("mysql-bin.1000000:4"),
                BinlogPosition.parse("mysql-bin.000009:4")));
        positions.sort(null);
        assertThat(positions)
                .extracting(BinlogPosition::toString)
                .containsExactly(
                        "mysql-bin.000009:4",
                        "mysql-bin.000009:999999",
                        "mysql-bin.000010:4",
                        "mysql-bin.000010:120",
                        "mysql-bin.1000000:4");
        assertThat(BinlogPosition.parse("b.000002:4").reached(BinlogPosition.parse("b.000001:90000")))
                .isTrue();
        assertThat(BinlogPosition.parse("b.000001:4").reached(BinlogPosition.parse("b.000001:4")))
                .isTrue();
        assertThat(BinlogPosition.parse("b.000001:3").reached(BinlogPosition.parse("b.000001:4")))
                .isFalse();
    }

    @Test
    void parsesWhatItPrints() {
        BinlogPosition p = BinlogPosition.parse("primary-bin.000003:1234");
        assertThat(p.file()).isEqualTo("primary-bin.000003");
        assertThat(p.position()).isEqualTo(1234);
        assertThat(p.sequence()).isEqualTo(3);
        assertThat(p.baseName()).isEqualTo("primary-bin");
        assertThat(BinlogPosition.parse(p.toString())).isEqualTo(p);
        assertThat(BinlogPosition.parse("host.example.bin.000007:4").baseName()).isEqualTo("host.example.bin");
    }

    @Test
    void refusesWhatIsNotAPosition() {
        for (String bad : List.of(
                "",
                "mysql-bin.000001",
                ":4",
                "mysql-bin.000001:",
                "mysql-bin.000001:x",
                "mysql-bin:4",
                "mysql-bin.:4",
                "mysql-bin.00a1:4",
                "mysql-bin.000001:-1")) {
            assertThatThrownBy(() -> BinlogPosition.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("binary log");
        }
    }

    @Test
    void positionsOfDifferentLogSeriesDoNotCompare() {
        assertThatThrownBy(
                        () -> BinlogPosition.parse("a-bin.000001:4").compareTo(BinlogPosition.parse("b-bin.000001:4")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different log series");
    }

    @Test
    void theBytesBetweenTwoPositionsAreKnownWithinOneFile() {
        BinlogPosition applied = BinlogPosition.parse("shard-bin.000002:1000");
        assertThat(applied.bytesBefore(BinlogPosition.parse("shard-bin.000002:5096")))
                .isEqualTo(4096);
        assertThat(applied.bytesBefore(applied)).isZero();
        assertThat(applied.bytesBefore(BinlogPosition.parse("shard-bin.000002:400")))
                .isZero();
        assertThat(applied.bytesBefore(BinlogPosition.parse("shard-bin.000001:9999")))
                .isZero();
        assertThat(applied.bytesBefore(BinlogPosition.parse("shard-bin.000003:4")))
                .as("a later file: the sizes between are unknown")
                .isEqualTo(-1);
    }
}
