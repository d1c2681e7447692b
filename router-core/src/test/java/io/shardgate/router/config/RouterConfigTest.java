package io.shardgate.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardgate.protocol.auth.StoredCredential;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RouterConfigTest {
    private static final String MINIMAL = """
            users:
              - {name: app, password: secret}
            hostgroups:
              - {id: 10, writer: "db1:3307", user: sg, password: pw}
            """;

    @Test
    void minimalConfigGetsDocumentedDefaults() {
        RouterConfig config = RouterConfig.parse(MINIMAL);
        ServerSettings server = config.server();
        assertThat(server.bind()).isEqualTo("127.0.0.1");
        assertThat(server.port()).isEqualTo(6033);
        assertThat(server.adminPort()).isEqualTo(6032);
        assertThat(server.httpPort()).isEqualTo(6080);
        assertThat(server.maxConnections()).isEqualTo(10_000);
        assertThat(server.maxAllowedPacket()).isEqualTo(64 * 1024 * 1024);
        assertThat(server.authPlugin()).isEqualTo("mysql_native_password");
        assertThat(server.tls().enabled()).isTrue();
        assertThat(config.zookeeper().connect()).isEmpty();
        assertThat(config.zookeeper().root()).isEqualTo("/shardgate/default");
        assertThat(config.defaultHostgroup().writerAddress()).isEqualTo(new BackendAddress("db1", 3307));
    }

    @Test
    void plaintextPasswordIsHashedOnLoad() {
        UserConfig user = RouterConfig.parse(MINIMAL).users().get(0);
        StoredCredential expected = StoredCredential.fromPassword("secret");
        assertThat(user.credential().nativeHash()).isEqualTo(expected.nativeHash());
        assertThat(user.credential().sha2Hash()).isEqualTo(expected.sha2Hash());
        // no component of the record holds the plaintext
        assertThat(user.toString()).doesNotContain("secret");
        assertThat(Arrays.toString(user.getClass().getRecordComponents())).doesNotContain("password");
    }

    @Test
    void nativeHashUserHasNoSha2Hash() {
        RouterConfig config = RouterConfig.parse("""
                users:
                  - {name: r, password_hash: "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"}
                hostgroups:
                  - {id: 1, writer: h, user: u}
                """);
        StoredCredential credential = config.users().get(0).credential();
        assertThat(credential.nativeHash())
                .isEqualTo(StoredCredential.fromPassword("secret").nativeHash());
        assertThat(credential.sha2Hash()).isNull();
    }

    @Test
    void unknownKeyIsRejectedWithItsName() {
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL + "server: {prot: 1}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "server.prot: unknown key (did you mean 'port'? known: [admin_port, auth_plugin,");
    }

    @Test
    void everyUnknownKeyAndEveryOtherProblemIsListedAtOnceInOneFormat() {
        assertThatThrownBy(() -> RouterConfig.parse("""
                        server: {prot: 1, max_conections: 5, port: 70000}
                        users:
                          - {name: a, pasword: x}
                        hostgroups:
                          - {id: 1, writer: "h:1", user: u, pool: {max_connection: 3}, readers: [{address: "r:1", wieght: 2}]}
                        schemas:
                          - {name: s, default_hostgroup: 1, tables: [{name: t, strategy: table, hostgrup: 1}]}
                        cache: {max_byte: 1}
                        shards: 4
                        """))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems())
                        .containsExactly(
                                "server.prot: unknown key (did you mean 'port'? known: " + known("server") + ")",
                                "server.max_conections: unknown key (did you mean 'max_connections'? known: "
                                        + known("server") + ")",
                                "users[0].pasword: unknown key (did you mean 'password'? known: [connection_admin,"
                                        + " default_schema, max_connections, name, password, password_hash, require_tls])",
                                "hostgroups[0].pool.max_connection: unknown key (did you mean 'max_connections'?"
                                        + " known: [acquire_timeout_millis, idle_timeout_millis, max_connections,"
                                        + " max_lifetime_millis, multiplexing])",
                                "hostgroups[0].readers[0].wieght: unknown key (did you mean 'weight'? known: [address,"
                                        + " max_connections, weight])",
                                "shards: unknown key (known: [admin, cache, hostgroups, query_rules, schemas, server,"
                                        + " users, zookeeper])",
                                // an account failing its own checks does not stop the reading
                                "users: user 'a': give exactly one of password or password_hash",
                                "server.port must be a TCP port (0..65535), was 70000",
                                "cache.max_byte: unknown key (did you mean 'max_bytes'? known: [enabled,"
                                        + " fill_timeout_ms, max_bytes, max_entry_bytes])",
                                "schemas.s.tables.t.hostgrup: unknown key (did you mean 'hostgroup'? known:"
                                        + " [hostgroup, name, strategy])",
                                "schemas.s.tables.t.hostgroup: is required"))
                .hasMessageStartingWith("<config> is invalid (11 problems):\n  - server.prot: unknown key");
    }

    @Test
    void anUnknownKeyWhoseValueIsAMappingOrAListIsNamedWhereItIs() {
        assertThatThrownBy(() -> RouterConfig.parse("""
                        users: [{name: a, password: x}]
                        hostgroups:
                          - {id: 1, writer: "h:1", user: u, pol: {max_connections: 3}, reader: ["r:1"]}
                        server: {tls: {enabled: false, protocol: [TLSv1.3]}}
                        """))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems())
                        .extracting(p -> p.substring(0, p.indexOf(" (")))
                        .containsExactly(
                                "hostgroups[0].pol: unknown key",
                                "hostgroups[0].reader: unknown key",
                                "server.tls.protocol: unknown key"));
    }

    @Test
    void aValueOfTheWrongTypeIsListedWithTheUnknownKeys() {
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL + "server: {port: six, bnd: 0.0.0.0}\nzookeper: {}\n"))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems())
                        .hasSize(3)
                        .anySatisfy(p -> assertThat(p).startsWith("server.bnd: unknown key (did you mean 'bind'?"))
                        .anySatisfy(p -> assertThat(p).startsWith("zookeper: unknown key (did you mean 'zookeeper'?"))
                        .anySatisfy(
                                p -> assertThat(p).startsWith("server.port: ").contains("six")));
    }

    /** The keys of the {@code server} section, sorted, as the loader names them. */
    private static String known(String section) {
        try {
            RouterConfig.parse(MINIMAL + section + ": {zz: 1}\n");
        } catch (ConfigException e) {
            String p = e.problems().get(0);
            return p.substring(p.indexOf("known: ") + "known: ".length(), p.length() - 1);
        }
        throw new AssertionError("zz accepted");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        assertThatThrownBy(() -> RouterConfig.parse("""
                        server: {port: 70000, auth_plugin: dialog, max_allowed_packet: 10}
                        users:
                          - {name: a, password: x}
                          - {name: a, password: y}
                        hostgroups:
                          - {id: 1, writer: "h:0", user: u}
                          - {id: 1, writer: "h", user: ""}
                        schemas:
                          - {name: s, default_hostgroup: 9}
                        """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.port must be a TCP port")
                .hasMessageContaining("server.auth_plugin must be one of")
                .hasMessageContaining("server.max_allowed_packet")
                .hasMessageContaining("duplicate user 'a'")
                .hasMessageContaining("duplicate id 1")
                .hasMessageContaining("'h:0' is not a valid host:port")
                .hasMessageContaining("hostgroups[id=1].user is required")
                .hasMessageContaining("schemas.s.default_hostgroup: unknown hostgroup 9");
    }

    @Test
    void userNeedsExactlyOnePasswordForm() {
        assertThatThrownBy(() -> RouterConfig.parse("""
                        users:
                          - {name: a}
                        hostgroups:
                          - {id: 1, writer: h, user: u}
                        """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("user 'a': give exactly one of password or password_hash");
        assertThatThrownBy(() -> RouterConfig.parse("""
                        users:
                          - {name: a, password_hash: "nothex"}
                        hostgroups:
                          - {id: 1, writer: h, user: u}
                        """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("user 'a'");
    }

    @Test
    void emptyAndMissingSectionsAreClearErrors() {
        assertThatThrownBy(() -> RouterConfig.parse("")).hasMessageContaining("empty configuration");
        assertThatThrownBy(() -> RouterConfig.parse("server: {}\n"))
                .hasMessageContaining("at least one user")
                .hasMessageContaining("at least one hostgroup");
        assertThatThrownBy(() -> RouterConfig.parse("users: [\n")).hasMessageContaining("line 2, column 1");
    }

    @Test
    void drainTimeoutDefaultsToThirtySecondsAndMustNotBeNegative() {
        assertThat(RouterConfig.parse(MINIMAL).server().drainTimeoutMillis()).isEqualTo(30_000);
        assertThat(RouterConfig.parse(MINIMAL + "server: {drain_timeout_millis: 0}\n")
                        .server()
                        .drainTimeoutMillis())
                .isZero();
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL + "server: {drain_timeout_millis: -1}\n"))
                .hasMessageContaining(
                        "server.drain_timeout_millis must be 0 (close every session at once) or positive, was -1");
    }

    @Test
    void clientLimitsHaveDefaultsAndAreValidated() {
        ServerSettings defaults = RouterConfig.parse(MINIMAL).server();
        assertThat(defaults.maxStatementBytes()).isZero();
        assertThat(defaults.maxLoginFailures()).isEqualTo(100);
        assertThat(defaults.loginFailureWindowMillis()).isEqualTo(60_000);
        assertThat(RouterConfig.parse(MINIMAL).users().get(0).maxConnections()).isZero();
        assertThatThrownBy(() ->
                        RouterConfig.parse(MINIMAL + "server: {max_allowed_packet: 4096, max_statement_bytes: 8192,"
                                + " max_login_failures: -1, login_failure_window_millis: 0}\n"))
                .hasMessageContaining("server.max_statement_bytes must be 0 (no limit but max_allowed_packet) or up to"
                        + " server.max_allowed_packet (4096), was 8192")
                .hasMessageContaining("server.max_login_failures must be 0 (no block) or more, was -1")
                .hasMessageContaining("server.login_failure_window_millis must be positive, was 0");
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL.replace("secret}", "secret, max_connections: -2}")))
                .hasMessageContaining("user 'app': max_connections must be 0 (no limit) or more, was -2");
        assertThat(RouterConfig.parse(MINIMAL.replace("secret}", "secret, max_connections: 3}"))
                        .users()
                        .get(0)
                        .maxConnections())
                .isEqualTo(3);
    }

    @Test
    void tlsNeedsBothFilesOrNeither() {
        assertThatThrownBy(() -> RouterConfig.parse(MINIMAL + "server: {tls: {cert: /a.pem}}\n"))
                .hasMessageContaining("server.tls: set both cert and key");
    }

    @Test
    void defaultHostgroupIsTheLowestId() {
        RouterConfig config = RouterConfig.parse("""
                users: [{name: a, password: x}]
                hostgroups:
                  - {id: 7, writer: h1, user: u}
                  - {id: 2, writer: h2, user: u}
                schemas:
                  - {name: s, default_hostgroup: 7}
                """);
        assertThat(config.defaultHostgroup().id()).isEqualTo(2);
    }

    @Test
    void shardingRuleProblemsAreReportedWithTheirPath() {
        assertThatThrownBy(() -> RouterConfig.parse("""
                        users: [{name: a, password: x}]
                        hostgroups:
                          - {id: 1, writer: h1, user: u}
                        schemas:
                          - {name: s, default_hostgroup: 1, tables: [{name: t, strategy: table, hostgroup: 9}]}
                        """))
                .hasMessageContaining("schemas.s.tables.t")
                .hasMessageContaining("9");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "db;db;3306",
                "db:3307;db;3307",
                "10.0.0.1:13306;10.0.0.1;13306",
                "[::1]:3310;::1;3310",
                "[fe80::1];fe80::1;3306"
            })
    void parsesBackendAddresses(String text, String host, int port) {
        BackendAddress address = BackendAddress.parse(text);
        assertThat(address).isEqualTo(new BackendAddress(host, port));
        assertThat(BackendAddress.parse(address.toString())).isEqualTo(address);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {":3306", "db:x", "db:70000", "::1", "[::1", "[::1]x"})
    void rejectsBadBackendAddresses(String text) {
        assertThatThrownBy(() -> BackendAddress.parse(text)).isInstanceOf(ConfigException.class);
    }
}
