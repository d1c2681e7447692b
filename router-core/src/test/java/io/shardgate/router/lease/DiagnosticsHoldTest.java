package io.shardgate.router.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class DiagnosticsHoldTest {

    @Test
    void aStatementRaisingWarningsOrAnErrorKeepsItsConnection() {
        assertThat(DiagnosticsHold.after(false, false, false, 1)).isTrue();
        assertThat(DiagnosticsHold.after(false, false, true, 0)).isTrue();
        assertThat(DiagnosticsHold.after(false, true, false, 2)).isTrue();
    }

    @Test
    void aCleanStatementOnAnEmptyAreaLetsItGo() {
        assertThat(DiagnosticsHold.after(false, false, false, 0)).isFalse();
    }

    @Test
    void aCleanStatementAfterWarningsAsksTheServer() {
        // SELECT 2 after SELECT 1/0 leaves the division warning; SELECT ... FROM t clears it
        assertThat(DiagnosticsHold.after(false, true, false, 0)).isNull();
    }

    @Test
    void readsTheCountWithAndWithoutEofPackets() {
        String count = "0100000101";
        String definition = "0400000203646566"; // abridged: skipped by its length
        ByteBuf eof = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(
                count + definition + "05000003fe00000200" + "030000040231" + "32" + "05000005fe00000200"));
        ByteBuf deprecateEof = Unpooled.wrappedBuffer(
                ByteBufUtil.decodeHexDump(count + definition + "020000030130" + "07000004fe000002000000"));
        assertThat(DiagnosticsHold.count(eof)).isEqualTo(12);
        assertThat(DiagnosticsHold.count(deprecateEof)).isZero();
    }

    @Test
    void anAnswerWithoutARowKeepsTheConnection() {
        // under SET sql_select_limit = 0 the server answers SHOW COUNT(*) WARNINGS with no row (the
        // differential tester's seed 7 lost its connection to it)
        String count = "0100000101";
        String definition = "0400000203646566";
        ByteBuf noRow =
                Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(count + definition + "07000003fe000002000000"));
        assertThat(DiagnosticsHold.count(noRow)).isEqualTo(1);
    }

    @Test
    void peeksAtTheListWithAndWithoutEofPackets() {
        String count = "0100000103"; // SHOW WARNINGS: Level, Code, Message
        String definitions = "0400000203646566" + "0400000303646566" + "0400000403646566"; // abridged
        String eof = "05000005fe00000200";
        String row = "0c000006075761726e696e6701310178"; // Warning | 1 | x
        ByteBuf withRow = hex(count + definitions + eof + row + "05000007fe00000200");
        ByteBuf empty = hex(count + definitions + eof + "05000006fe00000200");
        ByteBuf withRowDeprecateEof = hex(count + definitions + row + "07000007fe000002000000");
        ByteBuf emptyDeprecateEof = hex(count + definitions + "07000006fe000002000000");
        assertThat(DiagnosticsHold.listed(withRow)).isEqualTo(1);
        assertThat(DiagnosticsHold.listed(empty)).isZero();
        assertThat(DiagnosticsHold.listed(withRowDeprecateEof)).isEqualTo(1);
        assertThat(DiagnosticsHold.listed(emptyDeprecateEof)).isZero();
        assertThat(DiagnosticsHold.listed(hex("0900000aff1905233432303030")))
                .as("an error: hold on")
                .isEqualTo(1);
    }

    @Test
    void countsOnlyWhereTheListMayBeShorterThanTheCount() {
        // max_error_count = 0 keeps the list empty while @@warning_count counts
        assertThat(DiagnosticsHold.check(java.util.Map.of("max_error_count", "max_error_count = 0")))
                .isEqualTo(DiagnosticsHold.COUNT);
        assertThat(DiagnosticsHold.check(java.util.Map.of("sql_mode", "sql_mode = ''")))
                .isEqualTo(DiagnosticsHold.PEEK);
    }

    private static ByteBuf hex(String dump) {
        return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(dump));
    }

    @Test
    void aDiagnosticsStatementLeavesTheAreaAsItFoundIt() {
        assertThat(DiagnosticsHold.after(true, true, false, 0)).isTrue();
        assertThat(DiagnosticsHold.after(true, false, false, 0)).isFalse();
        assertThat(DiagnosticsHold.after(true, false, true, 0))
                .as("a failing SHOW WARNINGS leaves its own error")
                .isTrue();
    }
}
