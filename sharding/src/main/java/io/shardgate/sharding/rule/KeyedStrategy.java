package io.shardgate.sharding.rule;

/** A strategy that places each row by the value of one key column. */
public sealed interface KeyedStrategy extends ShardingStrategy permits HashStrategy, RangeStrategy {

    /** The sharding key column, as written in the rule. */
    String column();

    KeyType keyType();

    /**
     * The hostgroup holding the row whose key equals {@code value}, or {@code -1} when the value has
     * no canonical key form (see {@link KeyValues}) or falls outside every range.
     */
    int hostgroupOf(Object value);

    /** Whether two strategies place every key value on the same hostgroup. */
    boolean placesAlike(KeyedStrategy other);
}
