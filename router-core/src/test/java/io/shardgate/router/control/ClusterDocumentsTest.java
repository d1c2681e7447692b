package io.shardgate.router.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.admin.store.ConfigDocuments;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.config.RouterConfig;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ClusterDocumentsTest {
    private static final String YAML = """
            server: {port: 7000}
            zookeeper: {root: /shardgate/test}
            users:
              - {name: app, password: secret, default_schema: shop}
              - {name: legacy, password_hash: "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"}
              - {name: open, password: "", connection_admin: true}
            hostgroups:
              - {id: 10, writer: "db1:3306", user: sg, password: pw, pool: {max_connections: 5}}
              - {id: 20, writer: "db2:3306", readers: ["db3:3306"], user: sg, password: pw}
            schemas:
              - {name: shop, default_hostgroup: 10, tables: [{name: t, strategy: table, hostgroup: 20}]}
            query_rules:
              - {match_digest: "^DELETE", error: "no deletes"}
            cache: {enabled: true}
            """;

    @Test
    void documentsReadBackAsTheSameConfiguration() {
        RouterConfig local = RouterConfig.parse(YAML);
        ConfigDocuments documents = ClusterDocuments.of(local);
        assertThat(documents.sections().keySet())
                .containsExactly("cache", "hostgroups", "query_rules", "schemas", "users");

        ClusterDocuments.Reading reading = ClusterDocuments.read(local, documents);
        assertThat(reading.problems()).isEmpty();
        RouterConfig back = reading.config();
        assertThat(back.server()).isEqualTo(local.server());
        assertThat(back.zookeeper()).isEqualTo(local.zookeeper());
        assertThat(back.hostgroups()).isEqualTo(local.hostgroups());
        assertThat(back.users()).isEqualTo(local.users());
        assertThat(back.users().get(2).connectionAdmin()).isTrue();
        assertThat(back.schemas()).isEqualTo(local.schemas());
        assertThat(back.queryRules()).isEqualTo(local.queryRules());
        assertThat(back.cache()).isEqualTo(local.cache());
    }

    @Test
    void usersAreStoredAsHashesOnly() {
        String users = ClusterDocuments.of(RouterConfig.parse(YAML)).get(ConfigDocuments.USERS);
        assertThat(users).doesNotContain("secret").doesNotContain("\"password\"");
        assertThat(users).contains(StoredCredential.fromPassword("secret").render());
        // a user known by its native hash only stays that way: no sha2 hash is made up
        assertThat(users).contains("\"password_hash\":\"*14E65567ABDB5135D0CFD9A70B3032C179A49EE7\"");
    }

    @Test
    void plaintextPasswordsAreRefusedAndHashedByPublishers() {
        RouterConfig local = RouterConfig.parse(YAML);
        Map<String, String> sections = new TreeMap<>(ClusterDocuments.of(local).sections());
        sections.put(ConfigDocuments.USERS, "- {name: app, password: other}\n");
        ConfigDocuments plaintext = ConfigDocuments.of(sections);
        assertThat(ClusterDocuments.read(local, plaintext).problems())
                .containsExactly("users: 'app' has a plaintext password; the cluster stores password_hash only"
                        + " (publishing through the router hashes it)");

        ConfigDocuments hashed = ClusterDocuments.hashPasswords(plaintext);
        assertThat(hashed.get(ConfigDocuments.USERS)).doesNotContain("other");
        RouterConfig config = ClusterDocuments.read(local, hashed).config();
        assertThat(config.users().get(0).credential()).isEqualTo(StoredCredential.fromPassword("other"));
    }

    @Test
    void everyProblemOfAVersionIsReported() {
        RouterConfig local = RouterConfig.parse(YAML);
        Map<String, String> sections = new TreeMap<>(ClusterDocuments.of(local).sections());
        sections.put("servers", "[]");
        sections.put(ConfigDocuments.SCHEMAS, "{not yaml: [");
        assertThat(ClusterDocuments.read(local, ConfigDocuments.of(sections)).problems())
                .hasSize(2)
                .anyMatch(p -> p.startsWith("unknown section 'servers'"))
                .anyMatch(p -> p.startsWith("schemas: not JSON or YAML"));

        sections = new TreeMap<>(ClusterDocuments.of(local).sections());
        sections.put(ConfigDocuments.SCHEMAS, "[{name: shop, default_hostgroup: 99}]");
        sections.put(ConfigDocuments.HOSTGROUPS, "[{id: 10, writer: 'db1:3306', user: sg, pol: {}}]");
        assertThat(ClusterDocuments.read(local, ConfigDocuments.of(sections)).problems())
                .singleElement()
                .asString()
                .startsWith("hostgroups[0].pol: unknown key (did you mean 'pool'?");

        sections.put(ConfigDocuments.HOSTGROUPS, "[{id: 10, writer: 'db1:3306', user: sg}]");
        assertThat(ClusterDocuments.read(local, ConfigDocuments.of(sections)).problems())
                .anySatisfy(p -> assertThat(p).contains("99"));
        sections.remove(ConfigDocuments.USERS);
        assertThat(ClusterDocuments.read(local, ConfigDocuments.of(sections)).problems())
                .contains("users: at least one user is required");
    }
}
