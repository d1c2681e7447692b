package io.shardgate.router.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.protocol.charset.MySqlLatin1;
import io.shardgate.protocol.type.Collations;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientCharsetTest {
    private static Map<String, String> set(String sql) {
        Map<String, String> fragments = new LinkedHashMap<>();
        StatementScanner.scan(sql).variables().forEach(fragments::put);
        return fragments;
    }

    @Test
    void theHandshakeCollationUntilASetChangesIt() {
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, Map.of())).isEqualTo(StandardCharsets.UTF_8);
        assertThat(ClientCharset.of(Collations.LATIN1_SWEDISH_CI, Map.of())).isSameAs(MySqlLatin1.INSTANCE);
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET NAMES latin1")))
                .isSameAs(MySqlLatin1.INSTANCE);
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET NAMES 'latin1' COLLATE latin1_bin")))
                .isSameAs(MySqlLatin1.INSTANCE);
        assertThat(ClientCharset.of(Collations.LATIN1_SWEDISH_CI, set("SET CHARACTER SET utf8mb4")))
                .isEqualTo(StandardCharsets.UTF_8);
        assertThat(ClientCharset.of(Collations.LATIN1_SWEDISH_CI, set("SET CHARSET utf8mb4")))
                .isEqualTo(StandardCharsets.UTF_8);
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET character_set_client = latin1")))
                .isSameAs(MySqlLatin1.INSTANCE);
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET SESSION character_set_results = latin1")))
                .as("results only")
                .isEqualTo(StandardCharsets.UTF_8);
    }

    @Test
    void unknownWhenTheValueIsNotACharsetName() {
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET NAMES DEFAULT")))
                .isNull();
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET character_set_client = @cs")))
                .isNull();
        assertThat(ClientCharset.of(Collations.UTF8MB4_GENERAL_CI, set("SET NAMES armscii8")))
                .isNull();
    }

    @Test
    void asciiTextIsReadableWhateverTheCharset() {
        assertThat(ClientCharset.readable("SELECT 'k'".getBytes(StandardCharsets.US_ASCII)))
                .isTrue();
        assertThat(ClientCharset.readable(new byte[] {'\'', (byte) 0xDF, '\''})).isFalse();
    }
}
