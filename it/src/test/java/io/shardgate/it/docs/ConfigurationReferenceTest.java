package io.shardgate.it.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardgate.cache.CacheConfig;
import io.shardgate.router.config.BackendTlsConfig;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.ReaderConfig;
import io.shardgate.router.config.RouterConfig;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists exactly the keys the configuration loaders accept, with the defaults
 * they apply. The accepted keys come from the loaders themselves: each section gets an unknown key
 * and the error names the keys it knows (Jackson's list for the router's records, the sharding
 * rule parser's and the cache config's own lists), so a key added to the code without a line in
 * the reference, or documented but gone, fails here.
 */
class ConfigurationReferenceTest {
    private static final String PROBE = "zz_probe";
    private static final String BASE_USERS = "users: [{name: a, password: b}]\n";
    private static final String BASE_HOSTGROUPS = "hostgroups: [{id: 10, writer: \"h:3306\", user: u}]\n";

    private static final ReferenceTable DOC = ReferenceTable.of("configuration.md");

    /** The YAML documents that put the probe key at each path prefix. */
    private static Map<String, String> probes() {
        Map<String, String> probes = new LinkedHashMap<>();
        String schema = "schemas: [{name: s, default_hostgroup: 10, tables: [%s]}]\n";
        probes.put("", BASE_USERS + BASE_HOSTGROUPS + PROBE + ": 1\n");
        probes.put("server.", "server: {" + PROBE + ": 1}\n" + BASE_USERS + BASE_HOSTGROUPS);
        probes.put("server.tls.", "server: {tls: {" + PROBE + ": 1}}\n" + BASE_USERS + BASE_HOSTGROUPS);
        probes.put("users[].", "users: [{name: a, password: b, " + PROBE + ": 1}]\n" + BASE_HOSTGROUPS);
        probes.put("zookeeper.", "zookeeper: {" + PROBE + ": 1}\n" + BASE_USERS + BASE_HOSTGROUPS);
        probes.put("admin.", "admin: {" + PROBE + ": 1}\n" + BASE_USERS + BASE_HOSTGROUPS);
        probes.put(
                "admin.users[].",
                "admin: {users: [{name: a, password: b, " + PROBE + ": 1}]}\n" + BASE_USERS + BASE_HOSTGROUPS);
        probes.put(
                "hostgroups[].",
                BASE_USERS + "hostgroups: [{id: 10, writer: \"h:3306\", user: u, " + PROBE + ": 1}]\n");
        probes.put(
                "hostgroups[].pool.",
                BASE_USERS + "hostgroups: [{id: 10, writer: \"h:3306\", user: u, pool: {" + PROBE + ": 1}}]\n");
        probes.put(
                "hostgroups[].monitor.",
                BASE_USERS + "hostgroups: [{id: 10, writer: \"h:3306\", user: u, monitor: {" + PROBE + ": 1}}]\n");
        probes.put(
                "hostgroups[].tls.",
                BASE_USERS + "hostgroups: [{id: 10, writer: \"h:3306\", user: u, tls: {" + PROBE + ": 1}}]\n");
        probes.put(
                "hostgroups[].readers[].",
                BASE_USERS + "hostgroups: [{id: 10, writer: \"h:3306\", user: u, readers: [{address: \"r:3306\", "
                        + PROBE + ": 1}]}]\n");
        probes.put(
                "schemas[].",
                BASE_USERS + BASE_HOSTGROUPS + "schemas: [{name: s, default_hostgroup: 10, " + PROBE + ": 1}]\n");
        for (String table : List.of(
                "{name: t1, strategy: table, hostgroup: 10, " + PROBE + ": 1}",
                "{name: t2, strategy: hash, column: id, buckets: 2, hostgroups: {10: \"0-1\"}, " + PROBE + ": 1}",
                "{name: t3, strategy: range, column: id, ranges: [{hostgroup: 10}], " + PROBE + ": 1}",
                "{name: t4, strategy: broadcast, " + PROBE + ": 1}")) {
            probes.put("schemas[].tables[]. " + table, BASE_USERS + BASE_HOSTGROUPS + schema.formatted(table));
        }
        probes.put(
                "schemas[].tables[].ranges[].",
                BASE_USERS
                        + BASE_HOSTGROUPS
                        + schema.formatted(
                                "{name: t, strategy: range, column: id, ranges: [{hostgroup: 10, " + PROBE + ": 1}]}"));
        probes.put("query_rules[].", BASE_USERS + BASE_HOSTGROUPS + "query_rules: [{error: x, " + PROBE + ": 1}]\n");
        return probes;
    }

    /** Every key path the loaders accept. */
    private static Set<String> acceptedKeys() {
        Set<String> keys = new TreeSet<>();
        // every loader reports an unknown key the same way (UnknownKey), known keys sorted
        Pattern unknown = Pattern.compile(PROBE + ": unknown key \\(known: \\[(.*?)]\\)");
        probes().forEach((prefix, yaml) -> {
            String message;
            try {
                RouterConfig.parse(yaml);
                throw new AssertionError("the loader accepted an unknown key at '" + prefix + "':\n" + yaml);
            } catch (ConfigException e) {
                message = e.getMessage();
            }
            Matcher m = unknown.matcher(message);
            if (!m.find()) {
                fail("no list of known keys for '" + prefix + "' in: " + message);
            }
            assertThat(List.of(m.group(1).split(", ")))
                    .as("known keys at '%s' are listed sorted", prefix)
                    .isSorted();
            String path = prefix.split(" ")[0];
            for (String key : m.group(1).split(",")) {
                keys.add(path + key.strip());
            }
        });
        try {
            CacheConfig.parse(new ObjectMapper().readTree("{\"" + PROBE + "\": 1}"));
            fail("the cache section accepted an unknown key");
        } catch (IllegalArgumentException e) {
            Matcher m = Pattern.compile("known: \\[(.*?)]").matcher(e.getMessage());
            assertThat(m.find()).as(e.getMessage()).isTrue();
            for (String key : m.group(1).split(",")) {
                keys.add("cache." + key.strip());
            }
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
        return keys;
    }

    @Test
    void documentsExactlyTheKeysTheLoadersAccept() {
        Set<String> accepted = acceptedKeys();
        assertThat(accepted).contains("server.port", "schemas[].tables[].buckets", "cache.max_bytes");
        assertThat(new TreeSet<>(DOC.rows().keySet()))
                .as("keys in docs/configuration.md vs keys the loaders accept")
                .isEqualTo(accepted);
    }

    @Test
    void documentsTheDefaultsOfTheRouterSettings() {
        RouterConfig defaults = RouterConfig.parse(BASE_USERS + BASE_HOSTGROUPS);
        List<String> mismatches = new ArrayList<>();
        compare("server.", defaults.server(), mismatches);
        compare("server.tls.", defaults.server().tls(), mismatches);
        compare("zookeeper.", defaults.zookeeper(), mismatches);
        HostgroupConfig hostgroup = defaults.hostgroups().get(0);
        check("hostgroups[].read_your_writes_millis", hostgroup.readYourWritesMillis(), mismatches);
        check("hostgroups[].max_replication_lag", hostgroup.maxReplicationLag(), mismatches);
        compare("hostgroups[].pool.", hostgroup.pool(), mismatches);
        compare("hostgroups[].monitor.", hostgroup.monitor(), mismatches);
        compare("hostgroups[].tls.", new BackendTlsConfig(null, null, null, null), mismatches);
        check("users[].require_tls", defaults.users().get(0).requireTls(), mismatches);
        check("users[].connection_admin", defaults.users().get(0).connectionAdmin(), mismatches);
        check("hostgroups[].readers[].weight", ReaderConfig.of("r:3306").weight(), mismatches);
        CacheConfig cache = CacheConfig.DEFAULTS;
        check("cache.enabled", cache.enabled(), mismatches);
        check("cache.max_bytes", cache.maxBytes(), mismatches);
        check("cache.max_entry_bytes", cache.maxEntryBytes(), mismatches);
        check("cache.fill_timeout_ms", cache.fillTimeout().toMillis(), mismatches);
        assertThat(mismatches).as("defaults in docs/configuration.md").isEmpty();
    }

    /** Compares the doc's default of every simple-valued component of a settings record. */
    private static void compare(String prefix, Record settings, List<String> mismatches) {
        for (RecordComponent component : settings.getClass().getRecordComponents()) {
            Object value;
            try {
                value = component.getAccessor().invoke(settings);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            if (value instanceof String || value instanceof Number || value instanceof Boolean) {
                check(prefix + snakeCase(component.getName()), value, mismatches);
            }
        }
    }

    private static void check(String key, Object value, List<String> mismatches) {
        if (!DOC.rows().containsKey(key)) {
            mismatches.add(key + " is not documented");
            return;
        }
        String documented = DOC.firstLiteral(key, 0);
        String expected = "".equals(value) ? "\"\"" : String.valueOf(value); // an empty string is written ""
        if (!expected.equals(documented)) {
            mismatches.add(key + ": code default " + value + ", documented " + documented);
        }
    }

    private static String snakeCase(String camel) {
        return camel.replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT);
    }
}
