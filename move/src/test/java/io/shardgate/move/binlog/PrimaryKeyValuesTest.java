package io.shardgate.move.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.move.TableShape;
import io.shardgate.move.TableShape.Column;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrimaryKeyValuesTest {

    private static PrimaryKeyValues key(String dataType, String columnType, String charset) {
        return PrimaryKeyValues.of(new TableShape(
                "db",
                "t",
                List.of(new Column("k", dataType, columnType, charset), new Column("v", "int", "int(11)", null)),
                List.of(0)));
    }

    @Test
    void unsignedIntegersOfEveryWidthReadAsUnsigned() {
        // the library hands out the column's bits as a signed number of its width
        assertThat(key("tinyint", "tinyint(3) unsigned", null).value(0, -1)).isEqualTo(255L);
        assertThat(key("tinyint", "tinyint(3) unsigned", null).value(0, 127)).isEqualTo(127L);
        assertThat(key("tinyint", "tinyint(3) unsigned", null).value(0, -128)).isEqualTo(128L);
        assertThat(key("smallint", "smallint(5) unsigned", null).value(0, -1)).isEqualTo(65535L);
        assertThat(key("mediumint", "mediumint(8) unsigned", null).value(0, -1)).isEqualTo(16777215L);
        assertThat(key("mediumint", "mediumint(8) unsigned zerofill", null).value(0, -8388608))
                .isEqualTo(8388608L);
        assertThat(key("int", "int(10) unsigned", null).value(0, -1)).isEqualTo(4294967295L);
        assertThat(key("int", "int(10) unsigned", null).value(0, Integer.MIN_VALUE))
                .isEqualTo(2147483648L);
        PrimaryKeyValues bigint = key("bigint", "bigint(20) unsigned", null);
        assertThat(bigint.value(0, -1L)).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(bigint.value(0, Long.MIN_VALUE)).isEqualTo(new BigInteger("9223372036854775808"));
        assertThat(bigint.value(0, Long.MIN_VALUE + 1)).isEqualTo(new BigInteger("9223372036854775809"));
        assertThat(bigint.value(0, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(bigint.value(0, 0L)).isEqualTo(0L);
    }

    @Test
    void signedIntegersStaySigned() {
        assertThat(key("tinyint", "tinyint(4)", null).value(0, -128)).isEqualTo(-128L);
        assertThat(key("smallint", "smallint(6)", null).value(0, -32768)).isEqualTo(-32768L);
        assertThat(key("mediumint", "mediumint(9)", null).value(0, -8388608)).isEqualTo(-8388608L);
        assertThat(key("int", "int(11)", null).value(0, Integer.MIN_VALUE)).isEqualTo((long) Integer.MIN_VALUE);
        assertThat(key("bigint", "bigint(20)", null).value(0, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void stringsDecodeInTheColumnsCharacterSet() {
        String text = "Zoë 𝄞 Ж";
        assertThat(key("varchar", "varchar(20)", "utf8mb4").value(0, text.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(text);
        assertThat(key("char", "char(20)", "utf8mb3").value(0, "Zoë".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("Zoë");
        assertThat(key("varchar", "varchar(20)", "latin1").value(0, new byte[] {'Z', 'o', (byte) 0xEB, (byte) 0x80}))
                .isEqualTo("Zoë€");
        // MySQL's latin1 maps Windows-1252's five holes to the C1 controls
        assertThat(key("varchar", "varchar(20)", "latin1").value(0, new byte[] {(byte) 0x81, (byte) 0x9D}))
                .isEqualTo("\u0081\u009D");
        assertThat(key("varchar", "varchar(20)", "cp1251").value(0, new byte[] {(byte) 0xC6}))
                .isEqualTo("Ж");
        assertThat(key("varchar", "varchar(20)", "ucs2").value(0, new byte[] {(byte) 0xFE, (byte) 0xFF, 0, 'a'}))
                .as("a leading U+FEFF is a character, not a byte order mark")
                .isEqualTo("\uFEFFa");
        assertThat(key("varchar", "varchar(20)", "utf16").value(0, "𝄞".getBytes(StandardCharsets.UTF_16BE)))
                .isEqualTo("𝄞");
        assertThat(key("varchar", "varchar(20)", "utf16le").value(0, "ab".getBytes(StandardCharsets.UTF_16LE)))
                .isEqualTo("ab");
        assertThat(key("varchar", "varchar(20)", "utf32").value(0, new byte[] {0, 1, (byte) 0xD1, 0x1E}))
                .isEqualTo("𝄞");
        assertThat(key("varchar", "varchar(20)", "ascii").value(0, "abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("abc");
    }

    @Test
    void bytesThatAreNotAValueOfTheCharacterSetStopTheCatchUp() {
        assertThatThrownBy(() -> key("varchar", "varchar(20)", "utf8mb4").value(0, new byte[] {(byte) 0xC3}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not valid utf8mb4");
        assertThatThrownBy(() -> key("varchar", "varchar(20)", "ascii").value(0, new byte[] {(byte) 0x80}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ascii");
    }

    @Test
    void binaryStringsKeepTheirBytesAndBinaryGetsItsPaddingBack() {
        byte[] bytes = {0, 1, (byte) 0xFF};
        assertThat((byte[]) key("varbinary", "varbinary(16)", null).value(0, bytes))
                .containsExactly(0, 1, 0xFF);
        assertThat((byte[]) key("binary", "binary(5)", null).value(0, bytes)).containsExactly(0, 1, 0xFF, 0, 0);
        assertThat((byte[]) key("binary", "binary(3)", null).value(0, bytes)).containsExactly(0, 1, 0xFF);
    }

    @Test
    void decimalsPassThrough() {
        assertThat(key("decimal", "decimal(20,4)", null).value(0, new BigDecimal("-12.3400")))
                .isEqualTo(new BigDecimal("-12.3400"));
    }

    @Test
    void unsupportedKeysAreRefusedAtStartNamingColumnAndType() {
        assertThatThrownBy(() -> key("datetime", "datetime(6)", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("`db`.`t`")
                .hasMessageContaining("`k` is datetime(6)")
                .hasMessageContaining("temporal");
        assertThatThrownBy(() -> key("double", "double", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("`k` is double");
        assertThatThrownBy(() -> key("enum", "enum('a','b')", "utf8mb4"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("`k` is enum('a','b')");
        assertThatThrownBy(() -> key("varchar", "varchar(10)", "sjis"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("character set sjis");
    }

    @Test
    void aRowImageGivesItsKeyInTheKeysColumnOrder() {
        TableShape shape = new TableShape(
                "db",
                "t",
                List.of(
                        new Column("a", "int", "int(11)", null),
                        new Column("name", "varchar", "varchar(10)", "utf8mb4"),
                        new Column("id", "bigint", "bigint(20) unsigned", null)),
                List.of(2, 1));
        PrimaryKeyValues values = PrimaryKeyValues.of(shape);
        BitSet all = new BitSet();
        all.set(0, 3);
        RowKey key = values.key(new Serializable[] {7, "é".getBytes(StandardCharsets.UTF_8), -2L}, all);
        assertThat(key).isEqualTo(RowKey.of(new BigInteger("18446744073709551614"), "é"));

        BitSet withoutName = new BitSet();
        withoutName.set(0);
        withoutName.set(2);
        assertThatThrownBy(() -> values.key(new Serializable[] {7, -2L}, withoutName))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lacks primary key column `name`");
        assertThatThrownBy(() -> values.key(new Serializable[] {7, null, -2L}, all))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("NULL");
        assertThatThrownBy(() -> values.key(new Serializable[] {7, "é", -2L}, all))
                .as("a String where the bytes were expected: the deserializer is not configured as assumed")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not what its shape says");
    }

    @Test
    void rowKeysCompareByteArraysByContent() {
        assertThat(RowKey.of(1L, new byte[] {1, 2})).isEqualTo(RowKey.of(1L, new byte[] {1, 2}));
        assertThat(RowKey.of(1L, new byte[] {1, 2}).hashCode())
                .isEqualTo(RowKey.of(1L, new byte[] {1, 2}).hashCode());
        assertThat(RowKey.of(1L, new byte[] {1, 2})).isNotEqualTo(RowKey.of(1L, new byte[] {1, 3}));
        byte[] bytes = {1, 2};
        Object[] array = RowKey.of(1L, bytes).toArray();
        ((byte[]) array[1])[0] = 9;
        assertThat(RowKey.of(1L, bytes).toArray()).containsExactly(1L, new byte[] {1, 2});
    }
}
