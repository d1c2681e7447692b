package io.shardgate.sharding.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.sharding.digest.Digest;
import org.junit.jupiter.api.Test;

class ClientTextTest {
    /** The client's text of the normalized span that starts at {@code from} in the digest text. */
    private static String written(String sql, String normalizedItem) {
        Digest d = Digest.of(sql);
        int start = d.text().indexOf(normalizedItem);
        assertThat(start).as(d.text()).isNotNegative();
        return ClientText.of(d, start, start + normalizedItem.length());
    }

    @Test
    void keepsTheClientsSpacingCaseAndLiterals() {
        assertThat(written("select sum(k)/count(*) from t", "SUM(k) / COUNT(*)"))
                .isEqualTo("sum(k)/count(*)");
        assertThat(written("SELECT  COUNT(*)+1 ,MAX(k) FROM t", "COUNT(*) + ?")).isEqualTo("COUNT(*)+1");
        assertThat(written("SELECT ROUND( AVG(k) , 2 ) FROM t WHERE a = 'x'", "ROUND(AVG(k), ?)"))
                .isEqualTo("ROUND( AVG(k) , 2 )");
    }

    @Test
    void skipsCommentsAndKeepsPlaceholders() {
        assertThat(written("SELECT /* c */ id, -SUM(v) -- x\n FROM t", "- SUM(v)"))
                .isEqualTo("-SUM(v)");
        assertThat(written("SELECT COUNT(*) * ? FROM t WHERE a = ?", "COUNT(*) * ?"))
                .isEqualTo("COUNT(*) * ?");
    }

    @Test
    void givesUpOnVersionedComments() {
        assertThat(written("SELECT /*!50000 1 + */ SUM(v) FROM t", "SUM(v)")).isNull();
    }
}
