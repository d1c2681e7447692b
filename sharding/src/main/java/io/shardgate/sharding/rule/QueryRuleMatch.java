package io.shardgate.sharding.rule;

import java.util.List;

/**
 * The actions of the query rules that matched one statement, later rules overriding earlier ones;
 * a field is {@code null} when no matching rule set it.
 */
public record QueryRuleMatch(
        List<Integer> rules,
        Integer destinationHostgroup,
        Role role,
        Long cacheTtlMillis,
        Boolean multiplex,
        String error) {

    public static final QueryRuleMatch NONE = new QueryRuleMatch(List.of(), null, null, null, null, null);

    /** MySQL error number sent with {@link #error()}, as ProxySQL does (ER_NOT_ALLOWED_COMMAND). */
    public static final int ERROR_CODE = 1148;

    public boolean matched() {
        return !rules.isEmpty();
    }
}
