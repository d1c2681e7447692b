package io.shardgate.router.lease;

import io.shardgate.router.session.SessionVariables;
import java.util.LinkedHashMap;
import java.util.Map;

/** Session states for lease tests: a schema and SET fragments keyed by their first word. */
final class SessionStates {
    private SessionStates() {}

    static SessionVariables state(String schema, String... assignments) {
        Map<String, String> fragments = new LinkedHashMap<>();
        for (String a : assignments) {
            fragments.put(a.substring(0, a.indexOf(' ')), a);
        }
        return new SessionVariables(schema, fragments);
    }
}
