package io.shardgate.router.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.config.RouterConfig;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which of the YAML file's cluster sections differ from a version stored in ZooKeeper, and how. */
class ConfigDriftTest {
    private static final String YAML = """
            users:
              - {name: app, password: secret}
              - {name: report, password: r}
            hostgroups:
              - {id: 10, writer: "db1:3306", user: sg, password: pw}
              - {id: 20, writer: "db2:3306", user: sg, password: pw}
            schemas:
              - {name: shop, default_hostgroup: 10, tables: [{name: t, strategy: table, hostgroup: 20}]}
            query_rules:
              - {match_digest: "^DELETE", error: "no deletes"}
            cache: {enabled: true, max_bytes: 1000000, max_entry_bytes: 1000}
            """;

    private static final RouterConfig FILE = RouterConfig.parse(YAML);

    /** The file's documents with {@code section} replaced by {@code text} (null removes it). */
    private static ConfigDocuments storedWith(String section, String text) {
        Map<String, String> sections = new TreeMap<>(ClusterDocuments.of(FILE).sections());
        if (text == null) {
            sections.remove(section);
        } else {
            sections.put(section, text);
        }
        return ConfigDocuments.of(sections);
    }

    @Test
    void theVersionTheFileSeededDoesNotDiffer() {
        assertThat(ConfigDrift.between(FILE, ClusterDocuments.of(FILE))).isEmpty();
    }

    @Test
    void formDoesNotCountOnlyContent() {
        // YAML instead of JSON, other key order, defaults spelt out, the users' hashes for the file's passwords
        ConfigDocuments stored = ConfigDocuments.of(Map.of(
                "users",
                "- {password_hash: \"" + StoredCredential.fromPassword("secret").render() + "\", name: app}\n"
                        + "- {name: report, password_hash: \""
                        + StoredCredential.fromPassword("r").render() + "\"}\n",
                "hostgroups",
                "[{\"writer\": \"db1:3306\", \"id\": 10, \"user\": \"sg\", \"password\": \"pw\"},"
                        + " {\"id\": 20, \"user\": \"sg\", \"password\": \"pw\", \"writer\": \"db2:3306\"}]",
                "schemas",
                "- name: shop\n  default_hostgroup: 10\n  tables:\n    - {strategy: table, name: t, hostgroup: 20}\n",
                "query_rules",
                "[{match_digest: \"^DELETE\", error: \"no deletes\"}]",
                "cache",
                "{max_entry_bytes: 1000, max_bytes: 1000000, enabled: true}"));
        assertThat(ConfigDrift.between(FILE, stored)).isEmpty();
    }

    @Test
    void namesEachSectionThatDiffersAndTheElementsInIt() {
        Map<String, String> sections = new TreeMap<>(ClusterDocuments.of(FILE).sections());
        // the cluster changed after the file seeded it: hostgroup 20 moved, 30 added, report dropped,
        // another password for app, the rule rewritten, the cache off
        sections.put(
                "hostgroups",
                "[{id: 10, writer: \"db1:3306\", user: sg, password: pw},"
                        + " {id: 20, writer: \"db9:3306\", user: sg, password: pw},"
                        + " {id: 30, writer: \"db3:3306\", user: sg, password: pw}]");
        sections.put(
                "users",
                "[{name: app, password_hash: \""
                        + StoredCredential.fromPassword("changed").render() + "\"}]");
        sections.put("query_rules", "[{match_digest: \"^DELETE\", error: \"never\"}]");
        sections.put("cache", "{enabled: false, max_bytes: 1000000, max_entry_bytes: 1000}");
        assertThat(ConfigDrift.between(FILE, ConfigDocuments.of(sections)))
                .containsExactly(
                        "cache (enabled changed)",
                        "hostgroups (20 changed, 30 only in ZooKeeper)",
                        "query_rules (#1 changed)",
                        "users ('app' changed, 'report' only in the file)");
    }

    @Test
    void aSectionOnOneSideOnlyDiffers() {
        assertThat(ConfigDrift.between(FILE, storedWith("cache", null))).containsExactly("cache (only in the file)");
        RouterConfig noCache = RouterConfig.parse(
                YAML.replace("cache: {enabled: true, max_bytes: 1000000, max_entry_bytes: 1000}\n", ""));
        assertThat(ConfigDrift.between(noCache, ClusterDocuments.of(FILE)))
                .containsExactly("cache (only in ZooKeeper)");
    }

    @Test
    void schemasAreComparedByName() {
        ConfigDocuments stored = storedWith(
                "schemas",
                "[{name: shop, default_hostgroup: 10, tables: [{name: t, strategy: table, hostgroup: 10}]},"
                        + " {name: archive, default_hostgroup: 20}]");
        assertThat(ConfigDrift.between(FILE, stored))
                .containsExactly("schemas ('shop' changed, 'archive' only in ZooKeeper)");
    }

    @Test
    void aStoredVersionTheFileCannotReadIsComparedAsItIs() {
        // hostgroup 30 is unknown to this file's schemas: the version does not read, the text still compares
        ConfigDocuments stored = storedWith("schemas", "[{name: shop, default_hostgroup: 30}]");
        assertThat(ConfigDrift.between(FILE, stored)).containsExactly("schemas ('shop' changed)");
    }

    @Test
    void theWarningNamesTheSectionsTheVersionAndTheWaysOut() {
        String warning = StartupPublisher.warning(
                "/shardgate/prod", 7, List.of("hostgroups (20 changed)", "schemas ('shop' changed)"));
        assertThat(warning)
                .contains("config version 7 in ZooKeeper /shardgate/prod")
                .contains("IGNORED: hostgroups (20 changed); schemas ('shop' changed)")
                .contains("bin/shardgate run --config FILE --publish-config")
                .contains("zookeeper.publish_on_start: true")
                .contains("bin/shardgate admin apply --config FILE")
                .contains("bin/shardgate admin show");
    }
}
