package io.shardgate.router.session;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The replayable part of a MySQL session: the default schema and the session variables set with
 * {@code SET}, as the fragments that set them, in the order they were applied. A client session
 * holds the state it asked for; each pooled backend connection holds the state its server session
 * has, and borrowing aligns the second with the first. Immutable.
 *
 * <p>A user variable copied from a system variable ({@code SET @saved = @@character_set_client},
 * as mysqldump writes around each CREATE TABLE) is remembered with the value this state gives that
 * variable, so {@code SET character_set_client = @saved} replays as that literal value on every
 * connection, where {@code @saved} does not exist. A copy whose value the state does not know
 * stays unresolved: its replay fails with the server's error rather than guessing.
 */
public final class SessionVariables {
    private static final java.util.regex.Pattern USER_VARIABLE_VALUE =
            java.util.regex.Pattern.compile("^([a-z_0-9.]+) = (@[A-Za-z_0-9$.]+)$");

    private final String schema;
    private final Map<String, String> fragments;
    /** User variables copied from system variables: the literal value of the copy, by lower-case name. */
    private final Map<String, String> copies;
    /** How the session's sql_mode may read statement text otherwise than the router ({@link SqlModeLexing}). */
    private final Set<SqlModeLexing.Hazard> sqlModeHazards;

    public SessionVariables(String schema, Map<String, String> fragments) {
        this(schema, fragments, Map.of(), hazards(fragments.get("sql_mode"), Set.of()));
    }

    private SessionVariables(
            String schema,
            Map<String, String> fragments,
            Map<String, String> copies,
            Set<SqlModeLexing.Hazard> sqlModeHazards) {
        this.schema = schema;
        this.fragments = Collections.unmodifiableMap(new LinkedHashMap<>(fragments));
        this.copies = Map.copyOf(copies);
        this.sqlModeHazards = sqlModeHazards;
    }

    /** The hazards after the fragment {@code sql_mode = ...} (null: not set) in a session that had {@code before}. */
    private static Set<SqlModeLexing.Hazard> hazards(String fragment, Set<SqlModeLexing.Hazard> before) {
        return fragment == null ? Set.of() : SqlModeLexing.of(fragment.substring(fragment.indexOf(" = ") + 3), before);
    }

    /** How the sql_mode this state sets may read statement text otherwise than the router (see {@link SqlModeLexing}). */
    public Set<SqlModeLexing.Hazard> sqlModeHazards() {
        return sqlModeHazards;
    }

    /** A session right after login, with {@code schema} selected (or none). */
    public static SessionVariables initial(String schema) {
        return new SessionVariables(schema, Map.of());
    }

    public String schema() {
        return schema;
    }

    public Map<String, String> fragments() {
        return fragments;
    }

    public SessionVariables withSchema(String newSchema) {
        return new SessionVariables(newSchema, fragments, copies, sqlModeHazards);
    }

    /** This state after a statement's assignments (later ones replace and move to the end). */
    public SessionVariables apply(StatementEffects effects) {
        if (effects.variables().isEmpty() && effects.schema() == null) {
            return this;
        }
        Map<String, String> next = new LinkedHashMap<>(fragments);
        Map<String, String> nextCopies = new java.util.HashMap<>(copies);
        for (Map.Entry<String, String> e : effects.variables().entrySet()) {
            if (e.getKey().startsWith("@")) {
                // "@u = @@name": remember what name holds now (assignments of one SET apply left to right)
                String value = valueOf(next, e.getValue().substring(e.getValue().indexOf("@@") + 2));
                if (value != null) {
                    nextCopies.put(e.getKey(), value);
                } else {
                    nextCopies.remove(e.getKey());
                }
                continue;
            }
            String fragment = e.getValue();
            java.util.regex.Matcher copy = USER_VARIABLE_VALUE.matcher(fragment);
            if (copy.matches() && nextCopies.containsKey(copy.group(2).toLowerCase(java.util.Locale.ROOT))) {
                fragment = copy.group(1) + " = " + nextCopies.get(copy.group(2).toLowerCase(java.util.Locale.ROOT));
            }
            if (e.getKey().equals("names") || e.getKey().equals("character set")) {
                // both reset the character set variables that were set one by one
                next.keySet()
                        .removeIf(k -> k.startsWith("character_set_")
                                || k.equals("collation_connection")
                                || k.equals("names")
                                || k.equals("character set"));
            }
            next.remove(e.getKey());
            next.put(e.getKey(), fragment);
        }
        Set<SqlModeLexing.Hazard> nextHazards = sqlModeHazards;
        if (effects.variables().containsKey("sql_mode")) {
            nextHazards = hazards(next.get("sql_mode"), sqlModeHazards);
        }
        return new SessionVariables(
                effects.schema() != null ? effects.schema() : schema, next, nextCopies, nextHazards);
    }

    /**
     * The value, as SQL text, that {@code fragments} give the session variable {@code name}; null
     * when they do not set it (its value is the server's default, unknown here).
     */
    private static String valueOf(Map<String, String> fragments, String name) {
        String value = null;
        for (Map.Entry<String, String> e : fragments.entrySet()) {
            String key = e.getKey();
            String fragment = e.getValue();
            if (key.equals(name)) {
                value = fragment.substring(fragment.indexOf(" = ") + 3);
            } else if ((key.equals("names") || key.equals("character set"))
                    && (name.equals("character_set_client")
                            || name.equals("character_set_results")
                            || (key.equals("names") && name.equals("character_set_connection")))) {
                String[] words = fragment.split("\\s+");
                value = words[key.equals("names") ? 1 : 2];
            }
        }
        if (value == null || value.equalsIgnoreCase("NULL") || value.equalsIgnoreCase("DEFAULT")) {
            return null;
        }
        // a charset name as written (utf8mb4, 'utf8mb4'): quoted, so the replay reads it as a value
        return value.startsWith("'") || value.matches("-?[0-9.]+") ? value : "'" + value.replace("'", "''") + "'";
    }

    /**
     * The assignments that bring a connection in state {@code actual} to this state, in order, or
     * null when that needs a reset first: only when {@code actual}'s assignments are a prefix of
     * this state's can the rest simply be applied (order matters: SET NAMES overrides
     * character_set_results set before it).
     */
    public java.util.List<String> missingFrom(SessionVariables actual) {
        var mine = fragments.entrySet().iterator();
        for (Map.Entry<String, String> theirs : actual.fragments.entrySet()) {
            if (!mine.hasNext() || !mine.next().equals(theirs)) {
                return null;
            }
        }
        java.util.List<String> rest = new java.util.ArrayList<>();
        mine.forEachRemaining(e -> rest.add(e.getValue()));
        return rest;
    }

    /**
     * Every assignment of this state, in order, to be replayed over {@code actual} where a reset
     * must not happen (the server session holds a transaction or other state of the client
     * session's): replayed in order they give each variable this state's value, whatever {@code
     * actual} gave it. Null when {@code actual} sets a variable this state leaves at the server's
     * default, which no assignment here would bring back (the character set variables a later SET
     * NAMES / SET CHARACTER SET overrides count as set by it).
     */
    public java.util.List<String> replayOver(SessionVariables actual) {
        boolean namesSet = fragments.containsKey("names") || fragments.containsKey("character set");
        for (String variable : actual.fragments.keySet()) {
            boolean overriddenByNames = variable.startsWith("character_set_")
                    || variable.equals("collation_connection")
                    || variable.equals("names")
                    || variable.equals("character set");
            if (!fragments.containsKey(variable) && !(namesSet && overriddenByNames)) {
                return null;
            }
        }
        return java.util.List.copyOf(fragments.values());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionVariables other
                && Objects.equals(schema, other.schema)
                && fragments.equals(other.fragments);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, fragments);
    }

    @Override
    public String toString() {
        return "SessionVariables[schema=" + schema + ", " + fragments.values() + "]";
    }
}
