package io.shardgate.sharding.rule;

import java.util.Arrays;
import java.util.List;

/**
 * YAML {@code strategy: hash}: a key column hashed with {@link KeyHash} into {@code buckets}
 * virtual buckets; each bucket belongs to one hostgroup, so a shard is added by moving buckets.
 */
public final class HashStrategy implements KeyedStrategy {
    private final String column;
    private final KeyType keyType;
    private final KeyCollation keyCollation;
    private final int[] bucketHostgroups;
    private final List<Integer> hostgroups;

    /** {@code bucketHostgroups[b]} is the hostgroup of bucket {@code b}; a binary key collation. */
    public HashStrategy(String column, KeyType keyType, int[] bucketHostgroups) {
        this(column, keyType, KeyCollation.BINARY, bucketHostgroups);
    }

    /** {@code keyCollation} matters for {@link KeyType#STRING} keys only. */
    public HashStrategy(String column, KeyType keyType, KeyCollation keyCollation, int[] bucketHostgroups) {
        this.column = column;
        this.keyType = keyType;
        this.keyCollation = keyType == KeyType.STRING ? keyCollation : KeyCollation.BINARY;
        this.bucketHostgroups = bucketHostgroups.clone();
        this.hostgroups =
                Arrays.stream(bucketHostgroups).distinct().sorted().boxed().toList();
    }

    @Override
    public String kind() {
        return "hash";
    }

    @Override
    public String column() {
        return column;
    }

    @Override
    public KeyType keyType() {
        return keyType;
    }

    /** How string keys compare (binary for integer keys). */
    public KeyCollation keyCollation() {
        return keyCollation;
    }

    public int buckets() {
        return bucketHostgroups.length;
    }

    public int hostgroupOfBucket(int bucket) {
        return bucketHostgroups[bucket];
    }

    @Override
    public List<Integer> hostgroups() {
        return hostgroups;
    }

    @Override
    public int hostgroupOf(Object value) {
        if (keyType == KeyType.INTEGER) {
            Long key = KeyValues.toInteger(value);
            return key == null ? -1 : bucketHostgroups[KeyHash.bucket(key, bucketHostgroups.length)];
        }
        String key = KeyValues.toKeyString(value);
        return key == null ? -1 : bucketHostgroups[KeyHash.bucket(key, keyCollation, bucketHostgroups.length)];
    }

    @Override
    public boolean placesAlike(KeyedStrategy other) {
        return other instanceof HashStrategy h
                && h.keyType == keyType
                && h.keyCollation == keyCollation
                && Arrays.equals(h.bucketHostgroups, bucketHostgroups);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HashStrategy h && h.column.equals(column) && placesAlike(h);
    }

    @Override
    public int hashCode() {
        return column.hashCode() * 31 + Arrays.hashCode(bucketHostgroups);
    }

    @Override
    public String toString() {
        String collation =
                keyType == KeyType.STRING && keyCollation != KeyCollation.BINARY ? " " + keyCollation.ruleName() : "";
        return "hash(" + column + collation + ", " + bucketHostgroups.length + " buckets on " + hostgroups + ")";
    }
}
