package io.shardgate.sharding.rule;

import java.util.regex.Pattern;

/**
 * A ProxySQL-style query rule: a match on the digest text (regex, case-insensitive, found anywhere
 * unless anchored), the user and the schema, and the actions applied when it matches. Rules are
 * evaluated in list order; a matching rule with {@code apply} ends the evaluation, one without lets
 * later matching rules add or override actions. Absent actions are {@code null}.
 *
 * @param index position in the {@code query_rules} list, from 0
 * @param destinationHostgroup send the statement to this hostgroup instead of the planned targets
 * @param role force reads to the writer ({@link Role#WRITER}) or allow reads on readers
 * @param cacheTtlMillis cache the result of a cacheable read for this long (0 = do not cache)
 * @param multiplex {@code false} pins the backend connection to the session after this statement
 * @param error answer ERR 1148 with this message instead of running the statement
 */
public record QueryRule(
        int index,
        String comment,
        Pattern matchDigest,
        String user,
        String schema,
        Integer destinationHostgroup,
        Role role,
        Long cacheTtlMillis,
        Boolean multiplex,
        String error,
        boolean apply) {

    /** Whether the rule's conditions hold; {@code user} or {@code schema} may be null (unknown). */
    public boolean matches(String user, String schema, CharSequence digestText) {
        if (this.user != null && !this.user.equals(user)) {
            return false;
        }
        if (this.schema != null && !this.schema.equals(schema)) {
            return false;
        }
        return matchDigest == null || ReusedMatchers.find(matchDigest, digestText);
    }
}
