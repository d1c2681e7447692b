package io.shardgate.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.router.tls.BackendTlsMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostgroupConfigTest {
    private static HostgroupConfig hostgroup(String yaml) {
        return RouterConfig.parse("users:\n  - {name: app, password: secret}\nhostgroups:\n" + yaml)
                .hostgroups()
                .get(0);
    }

    @Test
    void writerOnlyHostgroupGetsDocumentedDefaults() {
        HostgroupConfig h = hostgroup("  - {id: 10, writer: \"db1:3307\", user: sg}\n");
        assertThat(h.readers()).isEmpty();
        assertThat(h.readYourWritesMillis()).isEqualTo(1000);
        assertThat(h.maxReplicationLag()).isZero();
        assertThat(h.monitor()).isEqualTo(new MonitorSettings(true, 2000, 2000, 3));
    }

    @Test
    void readersInShortAndLongForm() {
        HostgroupConfig h = hostgroup("""
                  - id: 10
                    writer: "db1:3306"
                    readers: ["db2:3306", {address: "db3:3306", weight: 3, max_connections: 50}]
                    user: sg
                    pool: {max_connections: 100}
                    read_your_writes_millis: 0
                    max_replication_lag: 10
                    monitor: {interval_millis: 500, shun_after_failures: 5}
                """);
        assertThat(h.readers())
                .containsExactly(new ReaderConfig("db2:3306", 1, null), new ReaderConfig("db3:3306", 3, 50));
        assertThat(h.pool()
                        .withMaxConnections(h.readers().get(1).maxConnections())
                        .maxConnections())
                .isEqualTo(50);
        assertThat(h.pool()
                        .withMaxConnections(h.readers().get(0).maxConnections())
                        .maxConnections())
                .isEqualTo(100);
        assertThat(h.readYourWritesMillis()).isZero();
        assertThat(h.maxReplicationLag()).isEqualTo(10);
        assertThat(h.monitor()).isEqualTo(new MonitorSettings(true, 500, 2000, 5));
    }

    @Test
    void everyProblemOfTheReadersIsReported() {
        assertThatThrownBy(() -> hostgroup("""
                          - id: 10
                            writer: "db1:3306"
                            readers: ["db1:3306", {address: "db3:x"}, {weight: -1, address: "db4", max_connections: 0}]
                            user: sg
                            monitor: {shun_after_failures: 0}
                        """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("readers[0]: db1:3306 is listed twice")
                .hasMessageContaining("readers[1].address: 'db3:x' has an invalid port 'x'")
                .hasMessageContaining("readers[2].weight must not be negative")
                .hasMessageContaining("readers[2].max_connections must be at least 1")
                .hasMessageContaining("monitor.shun_after_failures must be at least 1");
    }

    @Test
    void unknownReaderKeyIsRejected() {
        assertThatThrownBy(
                        () -> hostgroup("  - {id: 10, writer: db1, user: sg, readers: [{address: db2, wieght: 2}]}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("hostgroups[0].readers[0].wieght: unknown key (did you mean 'weight'?");
    }

    @Test
    void passwordFileIsReadByTheRouterAndNotKeptInTheConfiguration(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("hg10.pw"), "from-a-file\n");
        HostgroupConfig h =
                hostgroup("  - {id: 10, writer: \"db1:3306\", user: sg, password_file: \"" + file + "\"}\n");
        assertThat(h.password()).isNull();
        assertThat(h.withResolvedPassword().password()).isEqualTo("from-a-file");
        assertThat(h.withResolvedPassword().toString())
                .doesNotContain("from-a-file")
                .contains("password=<hidden>");
    }

    @Test
    void passwordReferencesAnEnvironmentVariable() {
        // PATH is set wherever tests run; its value stands in for a secret
        HostgroupConfig h = hostgroup("  - {id: 10, writer: \"db1:3306\", user: sg, password: \"${PATH}\"}\n");
        assertThat(h.password()).isEqualTo("${PATH}");
        assertThat(h.withResolvedPassword().password()).isEqualTo(System.getenv("PATH"));
    }

    @Test
    void unreadableSecretsAreReportedByNameNotContent(@TempDir Path dir) {
        assertThatThrownBy(() -> hostgroup(
                        "  - {id: 10, writer: \"db1:3306\", user: sg, password: \"${SHARDGATE_NO_SUCH_VARIABLE}\"}\n"))
                .hasMessageContaining(
                        "hostgroups[id=10].password: environment variable SHARDGATE_NO_SUCH_VARIABLE is not set");
        assertThatThrownBy(() -> hostgroup("  - {id: 10, writer: \"db1:3306\", user: sg, password_file: \""
                        + dir.resolve("missing") + "\"}\n"))
                .hasMessageContaining("hostgroups[id=10].password_file: cannot read " + dir.resolve("missing"));
        assertThatThrownBy(() -> hostgroup(
                        "  - {id: 10, writer: \"db1:3306\", user: sg, password: x, password_file: /etc/hostname}\n"))
                .hasMessageContaining("give password or password_file, not both");
        assertThatThrownBy(() -> hostgroup("  - {id: 10, writer: \"db1:3306\", user: sg, password: \"<hidden>\"}\n"))
                .hasMessageContaining("hostgroups[id=10].password is <hidden>");
    }

    @Test
    void tlsModeMustBeKnown() {
        assertThatThrownBy(() -> hostgroup("  - {id: 10, writer: \"db1:3306\", user: sg, tls: {mode: verify_full}}\n"))
                .hasMessageContaining(
                        "hostgroups[id=10].tls.mode must be disabled, preferred, required, verify_ca or verify_identity");
        assertThat(hostgroup("  - {id: 10, writer: \"db1:3306\", user: sg, tls: {mode: VERIFY_CA, ca: ca.pem}}\n")
                        .tlsSettings()
                        .mode())
                .isEqualTo(BackendTlsMode.VERIFY_CA);
    }
}
