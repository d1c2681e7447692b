package io.shardgate.sharding.plan;

import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.sharding.rule.Role;
import io.shardgate.sharding.rule.RuleSnapshot;
import io.shardgate.sharding.rule.SchemaRule;
import io.shardgate.sharding.rule.ShardingStrategy;
import io.shardgate.sharding.rule.SingleStrategy;
import io.shardgate.sharding.rule.TableRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Routes what Calcite does not parse, by explicit token rules over the normalized text: session
 * statements, SHOW/DESCRIBE, DDL on named tables, and a conservative fallback for the rest (run it
 * where every mentioned table lives if that is one hostgroup, otherwise refuse).
 */
final class StatementClassifier {
    private static final Set<String> SESSION =
            Set.of("SET", "USE", "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "LOCK", "UNLOCK");
    private static final Set<String> REFUSED = Set.of(
            "CALL",
            "LOAD",
            "XA",
            "PREPARE",
            "EXECUTE",
            "DEALLOCATE",
            "HANDLER",
            "GRANT",
            "REVOKE",
            "FLUSH",
            "KILL",
            "EXPLAIN",
            "ANALYZE",
            "OPTIMIZE",
            "REPAIR",
            "CHECK",
            "CHECKSUM",
            "INSTALL",
            "UNINSTALL",
            "SHUTDOWN");
    private static final Pattern TABLE_DDL = Pattern.compile(
            "^(?:CREATE (?:TEMPORARY )?TABLE (?:IF NOT EXISTS )?|ALTER (?:ONLINE |IGNORE )?TABLE |"
                    + "DROP (?:TEMPORARY )?TABLE (?:IF EXISTS )?|TRUNCATE (?:TABLE )?|"
                    + "CREATE (?:UNIQUE |FULLTEXT |SPATIAL )?INDEX \\S+ ON |DROP INDEX \\S+ ON )"
                    + "((?:`[^`]*`|[^\\s,(`]+)(?:\\.(?:`[^`]*`|[^\\s,(`]+))?(?: ?, ?(?:`[^`]*`|[^\\s,(`]+)"
                    + "(?:\\.(?:`[^`]*`|[^\\s,(`]+))?)*)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern SUBQUERY = Pattern.compile("\\bSELECT\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern CREATE_FROM_QUERY =
            Pattern.compile("^CREATE (?:OR REPLACE )?(?:TEMPORARY )?TABLE .*\\bSELECT\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern DATABASE_DDL =
            Pattern.compile("^(?:CREATE|DROP|ALTER) (?:DATABASE|SCHEMA)\\b", Pattern.CASE_INSENSITIVE);
    private static final String NAME = "(?:`[^`]*`|[^\\s`;.]+)";
    /** DESCRIBE t [col], SHOW [FULL] COLUMNS / INDEX FROM t [FROM db] [LIKE / WHERE], SHOW CREATE TABLE t. */
    private static final Pattern DESCRIBE = Pattern.compile(
            "^(?:(?:DESCRIBE|DESC) (" + NAME + "(?:\\." + NAME + ")?)(?: " + NAME + "| \\?)?"
                    + "|SHOW (?:FULL |EXTENDED )*(?:COLUMNS|FIELDS|INDEX|INDEXES|KEYS) (?:FROM|IN) (" + NAME
                    + "(?:\\." + NAME + ")?)(?: (?:FROM|IN) (" + NAME + "))?(?: LIKE \\?| WHERE .*)?"
                    + "|SHOW CREATE TABLE (" + NAME + "(?:\\." + NAME + ")?))$",
            Pattern.CASE_INSENSITIVE);
    /** SHOW DATABASES over several hostgroups: each lists its own, the client sees each name once, in order. */
    private static final Pattern SHOW_DATABASES =
            Pattern.compile("^SHOW (?:DATABASES|SCHEMAS)(?: LIKE \\?| WHERE .*)?$", Pattern.CASE_INSENSITIVE);

    /** SHOW TABLE STATUS [FROM db] [LIKE / WHERE]: the condition part is group 2 (LIKE) or 3 (WHERE). */
    private static final Pattern TABLE_STATUS = Pattern.compile(
            "^(SHOW TABLE STATUS(?: (?:FROM|IN) (?:`[^`]*`|[^\\s`]+))?)(?: LIKE (\\?)| WHERE (.*))?$",
            Pattern.CASE_INSENSITIVE);

    private static final Pattern TABLE_STATUS_DB =
            Pattern.compile("^SHOW TABLE STATUS (?:FROM|IN) (`[^`]*`|[^\\s`]+)", Pattern.CASE_INSENSITIVE);
    /** SHOW TABLE STATUS over several hostgroups: one row per table, sorted by name as MySQL lists them. */
    private static final MergeSpec BY_NAME = new MergeSpec(
                    List.of(new MergeSpec.SortKey(new MergeSpec.Column(0, false), false)),
                    List.of(),
                    List.of(),
                    false,
                    -1,
                    -1,
                    0,
                    false)
            .comparingNamesByBytes();

    private static final Pattern SHOW_TABLES = Pattern.compile(
            "^SHOW (?:FULL )?TABLES(?: (?:FROM|IN) (`[^`]*`|[^\\s`]+))?(?: LIKE \\?| WHERE .*)?$",
            Pattern.CASE_INSENSITIVE);
    /** SHOW TABLES over several shards: each lists its own, the client sees each name once, in order. */
    private static final MergeSpec TABLE_LIST = new MergeSpec(
                    List.of(new MergeSpec.SortKey(new MergeSpec.Column(0, false), false)),
                    List.of(),
                    List.of(),
                    true,
                    -1,
                    -1,
                    0,
                    false)
            .comparingNamesByBytes();

    private final RuleSnapshot rules;
    private final SchemaRule schema;
    private final String text;
    private final int defaultHostgroup;

    StatementClassifier(RuleSnapshot rules, String schemaName, String text) {
        this.rules = rules;
        this.schema = rules.schema(schemaName);
        this.text = text;
        this.defaultHostgroup =
                schema != null ? schema.defaultHostgroup() : rules.hostgroups().first();
    }

    /** The first word of the text, upper-cased. */
    static String firstWord(String text) {
        int end = 0;
        while (end < text.length() && Character.isLetter(text.charAt(end))) {
            end++;
        }
        return text.substring(0, end).toUpperCase(Locale.ROOT);
    }

    /** Plans a statement by its tokens; {@code parseError} says why Calcite could not, if it tried. */
    Planned classify(String parseError) {
        String first = firstWord(text);
        if (SESSION.contains(first)) {
            if (first.equals("SET") && SUBQUERY.matcher(text).find()) {
                // SET @v = (SELECT ...) runs where session statements run, the default hostgroup: it
                // may read only tables that live there whole
                Planned reads = mentioned(StatementKind.SESSION, Role.WRITER, "SET with a subquery");
                if (!(reads.route() instanceof Route.OneHostgroup one) || one.hostgroup() != defaultHostgroup) {
                    return reads.route() instanceof Route.Refuse
                            ? reads
                            : Planned.refuse(
                                    StatementKind.SESSION,
                                    "SET with a subquery over tables not on the schema's default hostgroup");
                }
            }
            return Planned.of(StatementKind.SESSION, Role.WRITER, new Route.Session(first));
        }
        if (REFUSED.contains(first)) {
            return Planned.refuse(StatementKind.OTHER, first + " statements are not supported through the router");
        }
        Matcher describe = DESCRIBE.matcher(text);
        if (describe.find()) {
            String named = describe.group(1) != null
                    ? describe.group(1)
                    : describe.group(2) != null ? describe.group(2) : describe.group(4);
            if (describe.group(3) != null && !named.contains(".")) {
                named = describe.group(3) + "." + named; // SHOW COLUMNS FROM t FROM db
            }
            TableRule rule = table(named);
            if (rule == null) {
                return Planned.of(
                        StatementKind.SHOW,
                        Role.READER,
                        new Route.Refuse(ErrorCode.ER_BAD_DB_ERROR, "Unknown database in " + named));
            }
            // every copy or shard has the same definition: any one answers
            return Planned.of(
                    StatementKind.SHOW,
                    Role.READER,
                    new Route.Broadcast(rule.strategy().hostgroups(), false));
        }
        Set<Integer> databaseHosts = databaseHostgroups();
        if (SHOW_DATABASES.matcher(text).find() && databaseHosts.size() > 1) {
            ShardSql verbatim = new ShardSql.Verbatim();
            return new Planned(
                    StatementKind.SHOW,
                    Role.READER,
                    new Route.Broadcast(List.copyOf(databaseHosts), true),
                    verbatim,
                    verbatim,
                    TABLE_LIST);
        }
        Matcher status = TABLE_STATUS.matcher(text);
        if (status.find()) {
            Planned planned = tableStatus(status);
            if (planned != null) {
                return planned;
            }
        }
        Matcher tables = SHOW_TABLES.matcher(text);
        if (tables.find()) {
            return showTables(tables.group(1));
        }
        if (first.equals("SHOW")) {
            return Planned.of(
                    StatementKind.SHOW,
                    Role.READER,
                    new Route.OneHostgroup(defaultHostgroup, "SHOW: default hostgroup"));
        }
        if (DATABASE_DDL.matcher(text).find()) {
            return Planned.of(
                    StatementKind.DDL, Role.WRITER, new Route.Broadcast(List.copyOf(rules.hostgroups()), true));
        }
        if (CREATE_FROM_QUERY.matcher(text).find()) {
            // CREATE TABLE ... [AS] SELECT reads tables where the new table is made: all must be there
            return mentioned(StatementKind.DDL, Role.WRITER, "CREATE TABLE ... SELECT");
        }
        Matcher ddl = TABLE_DDL.matcher(text);
        if (ddl.find()) {
            return ddl(ddl.group(1));
        }
        if (first.equals("CREATE") || first.equals("ALTER") || first.equals("DROP") || first.equals("RENAME")) {
            return mentioned(StatementKind.DDL, Role.WRITER, first + " statement");
        }
        StatementKind kind = switch (first) {
            case "SELECT", "WITH" -> StatementKind.SELECT;
            case "INSERT", "REPLACE" -> StatementKind.INSERT;
            case "UPDATE" -> StatementKind.UPDATE;
            case "DELETE" -> StatementKind.DELETE;
            default -> StatementKind.OTHER;
        };
        Role role = kind == StatementKind.SELECT ? Role.READER : Role.WRITER;
        return mentioned(kind, role, "statement the planner cannot parse (" + parseError + ")");
    }

    /**
     * SHOW [FULL] TABLES of a schema whose tables live on several hostgroups: asked of all of them,
     * names merged (distinct, sorted as MySQL lists them), so a client sees the logical schema.
     */
    private Planned showTables(String db) {
        SchemaRule s = db == null ? schema : rules.schema(db.replace("`", ""));
        Set<Integer> hostgroups = new TreeSet<>();
        if (s != null) {
            hostgroups.add(s.defaultHostgroup());
            s.tables().values().forEach(t -> hostgroups.addAll(t.strategy().hostgroups()));
        }
        if (hostgroups.size() <= 1) {
            int hg = hostgroups.isEmpty()
                    ? defaultHostgroup
                    : hostgroups.iterator().next();
            return Planned.of(
                    StatementKind.SHOW, Role.READER, new Route.OneHostgroup(hg, "SHOW TABLES: one hostgroup"));
        }
        ShardSql verbatim = new ShardSql.Verbatim();
        return new Planned(
                StatementKind.SHOW,
                Role.READER,
                new Route.Broadcast(List.copyOf(hostgroups), true),
                verbatim,
                verbatim,
                TABLE_LIST);
    }

    /**
     * SHOW TABLE STATUS of a schema spread over hostgroups: each is asked for the tables it
     * represents (see {@link InformationSchemaPlanner}), so a sharded table is listed once, with
     * its representative shard's figures; null when one hostgroup holds the schema.
     */
    private Planned tableStatus(Matcher status) {
        Matcher named = TABLE_STATUS_DB.matcher(text);
        SchemaRule s = named.find() ? rules.schema(named.group(1).replace("`", "")) : schema;
        if (s == null || !rules.listed(s.name())) {
            return null;
        }
        Set<Integer> hostgroups = new TreeSet<>();
        hostgroups.add(s.defaultHostgroup());
        s.tables().values().forEach(t -> hostgroups.addAll(t.strategy().hostgroups()));
        Map<Integer, ShardSql> byHostgroup = new TreeMap<>();
        for (int hg : hostgroups) {
            String tables = InformationSchemaPlanner.representedTables(s, hg, "Name");
            if (tables == null) {
                continue;
            }
            List<String> conditions = new ArrayList<>();
            if (status.group(2) != null) {
                conditions.add("Name LIKE ?");
            } else if (status.group(3) != null) {
                conditions.add("(" + status.group(3) + ")");
            }
            if (!tables.isEmpty()) {
                conditions.add(tables);
            }
            String shardText =
                    status.group(1) + (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions));
            byHostgroup.put(
                    hg, new ShardSql.Template(new SqlTemplate(shardText).segments(0, shardText.length(), List.of())));
        }
        if (byHostgroup.size() < 2) {
            return null;
        }
        ShardSql sql = new ShardSql.ByHostgroup(byHostgroup);
        return new Planned(
                StatementKind.SHOW,
                Role.READER,
                new Route.Broadcast(List.copyOf(byHostgroup.keySet()), true),
                sql,
                sql,
                BY_NAME);
    }

    /** Hostgroups holding databases a client can use: the lowest (unlisted ones) and every logical schema's. */
    private Set<Integer> databaseHostgroups() {
        Set<Integer> out = new TreeSet<>();
        out.add(rules.defaultHostgroup());
        for (SchemaRule s : rules.schemas().values()) {
            out.add(s.defaultHostgroup());
            s.tables().values().forEach(t -> out.addAll(t.strategy().hostgroups()));
        }
        return out;
    }

    private Planned ddl(String names) {
        Set<Integer> hostgroups = null;
        ShardingStrategy first = null;
        for (String name : names.split(" ?, ?")) {
            TableRule rule = table(name.trim());
            if (rule == null) {
                return Planned.of(
                        StatementKind.DDL,
                        Role.WRITER,
                        new Route.Refuse(ErrorCode.ER_BAD_DB_ERROR, "Unknown database in " + name.trim()));
            }
            Set<Integer> hgs = new TreeSet<>(rule.strategy().hostgroups());
            if (hostgroups != null && !hostgroups.equals(hgs)) {
                return Planned.refuse(
                        StatementKind.DDL,
                        "DDL on tables held by different hostgroups (" + hostgroups + " and " + hgs
                                + "): run it per table");
            }
            hostgroups = hgs;
            first = first == null ? rule.strategy() : first;
        }
        Route route = first instanceof SingleStrategy s
                ? new Route.OneHostgroup(s.hostgroup(), "DDL on a table of hostgroup " + s.hostgroup())
                : new Route.Broadcast(new ArrayList<>(hostgroups), true);
        return Planned.of(StatementKind.DDL, Role.WRITER, route);
    }

    /**
     * The conservative fallback: every word of the text that names a listed table decides; no
     * listed table means the default hostgroup (unlisted tables live there).
     */
    private Planned mentioned(StatementKind kind, Role role, String what) {
        Set<Integer> hostgroups = new TreeSet<>();
        String sharded = null;
        if (schema != null) {
            for (String word : text.split("[^A-Za-z0-9_$`.]+")) {
                String name = word.replace("`", "");
                name = name.substring(name.lastIndexOf('.') + 1);
                TableRule rule = name.isEmpty() ? null : schema.listed(name);
                if (rule == null) {
                    continue;
                }
                if (!(rule.strategy() instanceof SingleStrategy s)) {
                    sharded = rule.name();
                } else {
                    hostgroups.add(s.hostgroup());
                }
            }
        }
        if (sharded != null) {
            return Planned.refuse(kind, what + " on " + sharded + ", which is not on one hostgroup");
        }
        if (hostgroups.size() > 1) {
            return Planned.refuse(kind, what + " on tables of hostgroups " + hostgroups);
        }
        int hg = hostgroups.isEmpty() ? defaultHostgroup : hostgroups.iterator().next();
        String reason = hostgroups.isEmpty() ? "no listed table: default hostgroup" : "tables of hostgroup " + hg;
        return Planned.of(kind, role, new Route.OneHostgroup(hg, reason));
    }

    /** The rule for {@code [db.]table} as written (backticks allowed), or {@code null} for an unknown db. */
    private TableRule table(String qualified) {
        String[] parts = qualified.replace("`", "").split("\\.", 2);
        SchemaRule s = parts.length == 2 ? rules.schema(parts[0]) : schema;
        String name = parts[parts.length - 1];
        if (s == null) {
            return parts.length == 1 && schema == null
                    ? new TableRule(name, new SingleStrategy(defaultHostgroup))
                    : null;
        }
        return s.resolve(name);
    }
}
