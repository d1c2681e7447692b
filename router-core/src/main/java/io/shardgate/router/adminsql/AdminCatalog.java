package io.shardgate.router.adminsql;

import io.shardgate.admin.store.ConfigConflictException;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.LiveRouter;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.admin.store.RuleStoreException;
import io.shardgate.router.control.LiveConfiguration;
import io.shardgate.router.net.TextResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The tables of the SQL admin endpoint and what each statement does to them.
 *
 * <pre>
 * hostgroups, users, schemas, query_rules     the draft: SELECT, INSERT, UPDATE, DELETE
 * runtime_hostgroups, runtime_users, ...      the version in force (read-only)
 * runtime_config                              version, ZooKeeper, draft state, last refusal, restarts due
 * stats_routers                               the cluster's live routers
 * stats_moves                                 the cluster's online moves ({@link MovesTable}: INSERT
 *                                             starts one, UPDATE ... SET state = 'cancelled' cancels)
 * runtime_servers, stats_*                    this router's servers, sessions, pools, digests, cache
 *                                             ({@link RouterTables}: UPDATE runtime_servers SET status,
 *                                             DELETE FROM stats_query_digest, PURGE CACHE)
 * </pre>
 *
 * {@code LOAD ... TO RUNTIME} validates the draft and publishes it as the cluster's next version
 * (every router then runs it); {@code LOAD ... FROM RUNTIME} throws the draft away. Statements run
 * one at a time (synchronized): publishing blocks on ZooKeeper, so callers keep this off the event
 * loops.
 */
final class AdminCatalog {
    private final RuleStore store;
    private final RuleStore publisher;
    private final LiveConfiguration live;
    private final RouterTables router;
    private final AdminDraft draft = new AdminDraft();
    private final AdminVariables variables;

    /**
     * @param store the cluster's configuration as this router sees it
     * @param publisher where {@code LOAD ... TO RUNTIME} publishes (hashes plaintext passwords)
     */
    AdminCatalog(
            RuleStore store,
            RuleStore publisher,
            LiveConfiguration live,
            RouterTables router,
            AdminVariables variables) {
        this.store = store;
        this.publisher = publisher;
        this.live = live;
        this.router = router;
        this.variables = variables;
    }

    synchronized AdminResult execute(String sql, String user) {
        AdminStatement statement = AdminSqlParser.parse(sql);
        draft.refresh(store.current().orElse(null));
        if (statement instanceof AdminStatement.Select select) {
            return select.table() == null ? variables.select(select.items(), user) : select(select);
        }
        if (statement instanceof AdminStatement.Insert insert && insert.table().equals(MovesTable.NAME)) {
            return router.moves().insert(insert.columns(), insert.rows());
        }
        if (statement instanceof AdminStatement.Update update && update.table().equals(MovesTable.NAME)) {
            return new AdminResult.Done(router.moves().update(update.set(), update.where()), "");
        }
        if (statement instanceof AdminStatement.Insert insert) {
            return new AdminResult.Done(
                    draft.insert(editable(insert.table(), "INSERT"), insert.columns(), insert.rows()), "");
        }
        if (statement instanceof AdminStatement.Update update && update.table().equals(RouterTables.SERVERS)) {
            return new AdminResult.Done(router.updateServers(update.set(), update.where()), "");
        }
        if (statement instanceof AdminStatement.Update update && update.table().equals(InDoubtTable.NAME)) {
            return new AdminResult.Done(router.inDoubt().update(update.set(), update.where()), "");
        }
        if (statement instanceof AdminStatement.Update update) {
            AdminTable table = editable(update.table(), "UPDATE");
            return new AdminResult.Done(draft.update(table, update.set(), update.where()), "");
        }
        if (statement instanceof AdminStatement.Delete delete && delete.table().equals(RouterTables.DIGESTS)) {
            return new AdminResult.Done(router.clearDigests(), "");
        }
        if (statement instanceof AdminStatement.Purge purge) {
            return new AdminResult.Done(router.purge(purge), "");
        }
        if (statement instanceof AdminStatement.Delete delete) {
            return new AdminResult.Done(draft.delete(editable(delete.table(), "DELETE"), delete.where()), "");
        }
        if (statement instanceof AdminStatement.Load load) {
            return load.toRuntime() ? publish() : discard();
        }
        if (statement instanceof AdminStatement.Show show) {
            return show(show.what());
        }
        return new AdminResult.Done(0, ((AdminStatement.Accepted) statement).info());
    }

    private AdminTable editable(String name, String verb) {
        AdminTable table = AdminTable.named(name);
        if (table != null) {
            return table;
        }
        if (tableNames().contains(name)) {
            throw new AdminSqlException(1288, "The target table " + name + " of the " + verb + " is not updatable");
        }
        throw noSuchTable(name);
    }

    private static AdminSqlException noSuchTable(String name) {
        return new AdminSqlException(1146, "Table 'main." + name + "' doesn't exist");
    }

    private AdminResult publish() {
        if (store.current().isEmpty()) {
            throw new AdminSqlException(1105, "no configuration version is loaded yet: nothing to edit");
        }
        try {
            ConfigVersion published = publisher.publish(draft.basedOn(), draft.documents());
            draft.reset(published);
            return new AdminResult.Done(0, "published config version " + published.number());
        } catch (InvalidConfigException e) {
            throw new AdminSqlException(1105, "configuration refused: " + String.join("; ", e.problems()));
        } catch (ConfigConflictException e) {
            throw new AdminSqlException(
                    1105,
                    "the cluster moved to version " + e.current() + " after this draft was read from version "
                            + e.basedOn() + ": LOAD ... FROM RUNTIME, then edit again");
        } catch (RuleStoreException e) {
            throw new AdminSqlException(1105, "cannot publish: " + e.getMessage());
        }
    }

    private AdminResult discard() {
        draft.reset(store.current().orElse(null));
        return new AdminResult.Done(0, "draft reset to config version " + draft.basedOn());
    }

    private AdminResult select(AdminStatement.Select select) {
        AdminResult.Rows all = table(select.table());
        List<String> names =
                all.columns().stream().map(TextResultSet.Column::name).toList();
        List<Integer> picked = new ArrayList<>();
        List<TextResultSet.Column> columns = new ArrayList<>();
        for (AdminStatement.Item item : select.items()) {
            if (item.expression().equals("*")) {
                for (int i = 0; i < names.size(); i++) {
                    picked.add(i);
                    columns.add(all.columns().get(i));
                }
                continue;
            }
            int index = names.indexOf(item.expression());
            if (index < 0 || item.isLiteral()) {
                throw new AdminSqlException(1054, "Unknown column '" + item.expression() + "' in 'field list'");
            }
            picked.add(index);
            TextResultSet.Column c = all.columns().get(index);
            columns.add(item.alias() == null ? c : new TextResultSet.Column(item.alias(), c.integer()));
        }
        for (String column : select.where().keySet()) {
            if (!names.contains(column)) {
                throw new AdminSqlException(1054, "Unknown column '" + column + "' in 'where clause'");
            }
        }
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : all.rows()) {
            if (select.limit() != null && rows.size() >= select.limit()) {
                break;
            }
            if (RouterTables.matches(names, row, select.where())) {
                List<Object> out = new ArrayList<>(picked.size());
                picked.forEach(i -> out.add(row.get(i)));
                rows.add(out);
            }
        }
        return new AdminResult.Rows(columns, rows);
    }

    /** Every row and column of a table. */
    private AdminResult.Rows table(String name) {
        AdminTable editable = AdminTable.named(name);
        if (editable != null) {
            return jsonRows(editable, draft.rows(editable));
        }
        if (name.startsWith("runtime_") && AdminTable.named(name.substring(8)) != null) {
            AdminTable t = AdminTable.named(name.substring(8));
            return jsonRows(
                    t,
                    store.current()
                            .map(v -> AdminDraft.list(v.documents(), t))
                            .orElseGet(() -> new com.fasterxml.jackson.databind.ObjectMapper().createArrayNode()));
        }
        AdminResult.Rows live = router.rows(name);
        if (live != null) {
            return live;
        }
        return switch (name) {
            case "runtime_config" -> runtimeConfig();
            case "stats_routers" -> routers();
            default -> throw noSuchTable(name);
        };
    }

    private static AdminResult.Rows jsonRows(AdminTable table, com.fasterxml.jackson.databind.node.ArrayNode list) {
        List<String> names = AdminDraft.columns(table, list);
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            List<Object> row = new ArrayList<>(names.size());
            for (String column : names) {
                row.add(AdminDraft.cell(table, list.get(i), i, column));
            }
            rows.add(row);
        }
        return new AdminResult.Rows(typed(names, rows), rows);
    }

    /** Integer columns are those whose every value is a number. */
    static List<TextResultSet.Column> typed(List<String> names, List<List<Object>> rows) {
        List<TextResultSet.Column> columns = new ArrayList<>(names.size());
        for (int c = 0; c < names.size(); c++) {
            boolean integer = true;
            boolean any = false;
            for (List<Object> row : rows) {
                Object v = row.get(c);
                any |= v != null;
                integer &= v == null || v instanceof Long;
            }
            columns.add(new TextResultSet.Column(names.get(c), integer && any));
        }
        return columns;
    }

    private AdminResult.Rows runtimeConfig() {
        var status = store.status();
        Map<String, Object> row = new java.util.LinkedHashMap<>();
        row.put("version", live.version());
        row.put("zookeeper_connected", status.connected() ? 1L : 0L);
        row.put("draft_based_on", draft.basedOn());
        row.put("draft_changed", draft.changed() ? 1L : 0L);
        row.put(
                "last_refused_version",
                status.lastRejection().map(r -> (Object) r.version()).orElse(null));
        row.put(
                "last_refusal",
                status.lastRejection()
                        .map(r -> r.source() + ": " + String.join("; ", r.problems()))
                        .orElse(null));
        row.put(
                "draining_hostgroups",
                live.draining().isEmpty() ? null : live.draining().toString());
        List<List<Object>> rows = List.of(new ArrayList<>(row.values()));
        return new AdminResult.Rows(typed(new ArrayList<>(row.keySet()), rows), rows);
    }

    private AdminResult.Rows routers() {
        List<LiveRouter> routers;
        try {
            routers = store.liveRouters();
        } catch (RuleStoreException e) {
            throw new AdminSqlException(1105, "cannot list routers: " + e.getMessage());
        }
        List<String> names = List.of("id", "host", "ports", "config_version");
        List<List<Object>> rows = new ArrayList<>();
        for (LiveRouter r : routers) {
            rows.add(List.of(r.id(), r.host(), new TreeMap<>(r.ports()).toString(), r.configVersion()));
        }
        return new AdminResult.Rows(typed(names, rows), rows);
    }

    private List<String> tableNames() {
        List<String> names = new ArrayList<>();
        for (AdminTable t : AdminTable.values()) {
            names.add(t.tableName());
        }
        for (AdminTable t : AdminTable.values()) {
            names.add("runtime_" + t.tableName());
        }
        names.add("runtime_config");
        names.addAll(RouterTables.NAMES);
        names.add("stats_routers");
        return names;
    }

    private AdminResult show(String what) {
        if (what.equals("TABLES") || what.startsWith("TABLES ") || what.startsWith("FULL TABLES")) {
            List<List<Object>> rows = new ArrayList<>();
            tableNames().forEach(n -> rows.add(List.of(n)));
            return new AdminResult.Rows(List.of(TextResultSet.Column.text("tables")), rows);
        }
        if (what.equals("DATABASES") || what.equals("SCHEMAS")) {
            return new AdminResult.Rows(List.of(TextResultSet.Column.text("Database")), List.of(List.of("main")));
        }
        if (what.startsWith("WARNINGS") || what.startsWith("ERRORS")) {
            return new AdminResult.Rows(
                    List.of(
                            TextResultSet.Column.text("Level"),
                            TextResultSet.Column.integer("Code"),
                            TextResultSet.Column.text("Message")),
                    List.of());
        }
        if (what.contains("VARIABLES")) {
            return variables.show(what);
        }
        throw new AdminSqlException(1064, "SHOW " + what + " is not an admin statement (try SHOW TABLES)");
    }
}
