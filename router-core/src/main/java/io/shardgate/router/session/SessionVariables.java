package io.shardgate.router.session;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The replayable part of a MySQL session: the default schema and the session variables set with
 * {@code SET}, as the fragments that set them, in the order they were applied. A client session
 * holds the state it asked for; each pooled backend connection holds the state its server session
 * has, and borrowing aligns the second with the first. Immutable.
 */
public final class SessionVariables {
    private final String schema;
    private final Map<String, String> fragments;

    public SessionVariables(String schema, Map<String, String> fragments) {
        this.schema = schema;
        this.fragments = Collections.unmodifiableMap(new LinkedHashMap<>(fragments));
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
        return new SessionVariables(newSchema, fragments);
    }

    /** This state after a statement's assignments (later ones replace and move to the end). */
    public SessionVariables apply(StatementEffects effects) {
        if (effects.variables().isEmpty() && effects.schema() == null) {
            return this;
        }
        Map<String, String> next = new LinkedHashMap<>(fragments);
        for (Map.Entry<String, String> e : effects.variables().entrySet()) {
            if (e.getKey().equals("names") || e.getKey().equals("character set")) {
                // both reset the character set variables that were set one by one
                next.keySet()
                        .removeIf(k -> k.startsWith("character_set_")
                                || k.equals("collation_connection")
                                || k.equals("names")
                                || k.equals("character set"));
            }
            next.remove(e.getKey());
            next.put(e.getKey(), e.getValue());
        }
        return new SessionVariables(effects.schema() != null ? effects.schema() : schema, next);
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
