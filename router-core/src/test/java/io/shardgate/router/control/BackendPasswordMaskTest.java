package io.shardgate.router.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.admin.store.ConfigDocuments;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackendPasswordMaskTest {
    private static ConfigDocuments hostgroups(String json) {
        return ConfigDocuments.of(Map.of(ConfigDocuments.HOSTGROUPS, json, ConfigDocuments.USERS, "[]"));
    }

    private static final ConfigDocuments STORED = hostgroups("[{\"id\":10,\"writer\":\"db1:3306\",\"user\":\"sg\","
            + "\"password\":\"s3cret-10\"},{\"id\":20,\"writer\":\"db2:3306\",\"user\":\"sg\",\"password\":\"${SG_PW}\"},"
            + "{\"id\":30,\"writer\":\"db3:3306\",\"user\":\"sg\",\"password_file\":\"/run/secrets/sg\"},"
            + "{\"id\":40,\"writer\":\"db4:3306\",\"user\":\"sg\",\"password\":\"\"}]");

    @Test
    void hidesLiteralPasswordsOnly() {
        String shown = BackendPasswordMask.hide(STORED).get(ConfigDocuments.HOSTGROUPS);
        assertThat(shown)
                .doesNotContain("s3cret-10")
                .contains("\"password\":\"<hidden>\"")
                .contains("${SG_PW}")
                .contains("/run/secrets/sg")
                .contains("\"password\":\"\"");
    }

    @Test
    void aHiddenPasswordPublishedBackKeepsItsValue() {
        ConfigDocuments shown = BackendPasswordMask.hide(STORED);
        ConfigDocuments restored = BackendPasswordMask.restore(shown, STORED);
        assertThat(restored.get(ConfigDocuments.HOSTGROUPS)).contains("\"password\":\"s3cret-10\"");
    }

    @Test
    void aCopiedHostgroupTakesThePasswordOfTheSameAccountAndWriter() {
        ConfigDocuments copy =
                hostgroups("[{\"id\":11,\"writer\":\"db1:3306\",\"user\":\"sg\",\"password\":\"<hidden>\"},"
                        + "{\"id\":12,\"writer\":\"elsewhere:3306\",\"user\":\"sg\",\"password\":\"<hidden>\"},"
                        + "{\"id\":10,\"writer\":\"db1:3306\",\"user\":\"sg\",\"password\":\"changed\"}]");
        String restored = BackendPasswordMask.restore(copy, STORED).get(ConfigDocuments.HOSTGROUPS);
        assertThat(restored)
                .contains("{\"id\":11,\"writer\":\"db1:3306\",\"user\":\"sg\",\"password\":\"s3cret-10\"}")
                .contains("{\"id\":12,\"writer\":\"elsewhere:3306\",\"user\":\"sg\",\"password\":\"<hidden>\"}")
                .contains("\"password\":\"changed\"");
    }
}
