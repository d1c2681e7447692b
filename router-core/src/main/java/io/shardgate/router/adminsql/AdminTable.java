package io.shardgate.router.adminsql;

import io.shardgate.admin.store.ConfigDocuments;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The editable admin tables: each is one section of the cluster configuration, one row per
 * element of its list, one column per key (the known ones first, in this order). {@code runtime_}
 * plus the name is the same table as the version in force shows it, read-only.
 */
enum AdminTable {
    HOSTGROUPS(
            ConfigDocuments.HOSTGROUPS,
            List.of("id", "writer", "readers", "user", "password", "password_file", "pool", "tls")),
    USERS(ConfigDocuments.USERS, List.of("name", "password_hash", "default_schema", "require_tls")),
    SCHEMAS(
            ConfigDocuments.SCHEMAS,
            List.of("name", "default_hostgroup", "tables", "binding_groups", "transaction_mode")),
    QUERY_RULES(
            ConfigDocuments.QUERY_RULES,
            List.of(
                    "rule_id",
                    "comment",
                    "user",
                    "schema",
                    "match_digest",
                    "destination_hostgroup",
                    "role",
                    "cache_ttl_ms",
                    "multiplex",
                    "error",
                    "apply"));

    /** Columns whose values are lists or maps: given and shown as JSON (YAML flow style accepted). */
    static final Set<String> STRUCTURED =
            Set.of("readers", "pool", "tls", "tables", "binding_groups", "hostgroups", "ranges");
    /** Columns holding true/false (0/1 accepted). */
    static final Set<String> BOOLEAN = Set.of("multiplex", "apply", "require_tls", "connection_admin");
    /** The position of a query rule (1 = evaluated first); not stored, it is the order of the list. */
    static final String RULE_ID = "rule_id";

    private final String section;
    private final List<String> columns;

    AdminTable(String section, List<String> columns) {
        this.section = section;
        this.columns = columns;
    }

    String section() {
        return section;
    }

    List<String> columns() {
        return columns;
    }

    String tableName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The table named {@code name} (lower case), or null. */
    static AdminTable named(String name) {
        for (AdminTable t : values()) {
            if (t.tableName().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
