package io.shardgate.protocol.type;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class CollationsTest {
    @Test
    void wellKnownIds() {
        assertThat(Collations.idOf("utf8mb4_general_ci")).hasValue(45);
        assertThat(Collations.idOf("utf8mb4_bin")).hasValue(46);
        assertThat(Collations.idOf("utf8mb4_0900_ai_ci")).hasValue(255);
        assertThat(Collations.idOf("binary")).hasValue(63);
        assertThat(Collations.idOf("latin1_swedish_ci")).hasValue(8);
        assertThat(Collations.idOf("utf8mb3_general_ci")).hasValue(33);
        assertThat(Collations.idOf("UTF8_GENERAL_CI")).as("utf8 is utf8mb3").hasValue(33);
        assertThat(Collations.idOf("no_such_collation")).isEmpty();
        assertThat(Collations.nameOf(45)).isEqualTo("utf8mb4_general_ci");
        assertThat(Collations.charsetOf(255)).isEqualTo("utf8mb4");
        assertThat(Collations.nameOf(9999)).isNull();
    }

    @Test
    void setNamesPicksTheCollation() {
        assertThat(Collations.forSetNames("utf8mb4", null)).hasValue(45);
        assertThat(Collations.forSetNames("'utf8mb4'", "utf8mb4_bin")).hasValue(46);
        assertThat(Collations.forSetNames("utf8", null)).hasValue(33);
        assertThat(Collations.forSetNames("latin1", null)).hasValue(8);
        assertThat(Collations.forSetNames("binary", null)).hasValue(63);
        assertThat(Collations.forSetNames("latin1", "utf8mb4_bin"))
                .as("collation of another charset")
                .isEmpty();
        assertThat(Collations.forSetNames("klingon", null)).isEqualTo(OptionalInt.empty());
    }
}
