package io.shardgate.router.resultcache;

import java.util.Map;

/**
 * The session state a response's bytes depend on besides the statement, part of every cache key:
 * the result-format capabilities (CLIENT_DEPRECATE_EOF...), MariaDB's extended type info, the login
 * character set, and every session variable the client set (character_set_results, time_zone,
 * sql_mode...: any of them may change the bytes or the values). Sessions with equal variants get
 * byte-identical answers from the server.
 */
public record ResponseVariant(
        int capabilities, int mariaDbCapabilities, int characterSet, Map<String, String> variables) {
    public ResponseVariant {
        variables = Map.copyOf(variables);
    }
}
