package io.shardgate.it.deploy;

import io.shardgate.it.Repository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/compose as the tests read it: docker-compose.yml through SnakeYAML (which, unlike Jackson,
 * resolves the file's {@code <<: *anchor} merge keys as Compose does) and the files it mounts.
 */
final class ComposeFiles {
    static final Path DIR = Repository.file("deploy/compose");
    static final Path COMPOSE = DIR.resolve("docker-compose.yml");
    /** router1's config; router2's differs only in {@code server.node_id} (ComposeFilesTest). */
    static final Path ROUTER_CONFIG = DIR.resolve("router/router1.yaml");

    static final Path INIT_SQL = DIR.resolve("mysql/init/01-shardgate.sql");
    static final Path REPLICA_SQL = DIR.resolve("mysql/replica/01-replicate.sql");

    private static final Pattern CREATE_USER =
            Pattern.compile("CREATE USER IF NOT EXISTS '(\\w+)'@'%' IDENTIFIED BY '([^']*)'", Pattern.CASE_INSENSITIVE);
    private static final Pattern GRANT_ALL =
            Pattern.compile("GRANT ALL PRIVILEGES ON (\\w+)\\.\\* TO '(\\w+)'@'%'", Pattern.CASE_INSENSITIVE);
    private static final Pattern CREATE_DATABASE =
            Pattern.compile("CREATE DATABASE IF NOT EXISTS (\\w+)", Pattern.CASE_INSENSITIVE);
    private static final Pattern SOURCE_OPTION =
            Pattern.compile("(SOURCE_\\w+)\\s*=\\s*('([^']*)'|\\w+)", Pattern.CASE_INSENSITIVE);

    private ComposeFiles() {}

    /** The {@code services} mapping, anchors merged. */
    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> services() {
        Map<String, Object> compose = new Yaml().load(read(COMPOSE));
        return (Map<String, Map<String, Object>>) compose.get("services");
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The statements of an init script, {@code --} comment lines dropped. */
    static List<String> statements(Path sqlFile) {
        StringBuilder sql = new StringBuilder();
        for (String line : read(sqlFile).split("\n")) {
            if (!line.strip().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : sql.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip().replaceAll("\\s+", " "));
            }
        }
        return statements;
    }

    /** user -> password of the {@code CREATE USER} statements of the shards' init script. */
    static Map<String, String> initUsers() {
        return pairs(CREATE_USER, INIT_SQL);
    }

    /** user -> the database it gets every privilege on. */
    static Map<String, String> initGrants() {
        Map<String, String> grants = new LinkedHashMap<>();
        pairs(GRANT_ALL, INIT_SQL).forEach((database, user) -> grants.put(user, database));
        return grants;
    }

    static List<String> initDatabases() {
        List<String> databases = new ArrayList<>();
        Matcher m = CREATE_DATABASE.matcher(read(INIT_SQL));
        while (m.find()) {
            databases.add(m.group(1));
        }
        return databases;
    }

    /** The replica's {@code CHANGE REPLICATION SOURCE TO} options, e.g. SOURCE_HOST -> mysql1. */
    static Map<String, String> replicationSource() {
        Map<String, String> options = new LinkedHashMap<>();
        Matcher m = SOURCE_OPTION.matcher(read(REPLICA_SQL));
        while (m.find()) {
            options.put(m.group(1).toUpperCase(Locale.ROOT), m.group(3) != null ? m.group(3) : m.group(2));
        }
        return options;
    }

    private static Map<String, String> pairs(Pattern pattern, Path file) {
        Map<String, String> pairs = new LinkedHashMap<>();
        Matcher m = pattern.matcher(read(file));
        while (m.find()) {
            pairs.put(m.group(1), m.group(2));
        }
        return pairs;
    }
}
