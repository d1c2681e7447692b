package io.shardgate.sharding.rule;

/**
 * The stable hash that places a sharding key in a virtual bucket; part of the on-disk contract:
 * changing it moves every row, so it is specified here exactly and pinned by known-answer tests.
 *
 * <p>The hash is MurmurHash3 x86_32 with seed 0 over the key's canonical bytes: an {@link
 * KeyType#INTEGER} key is its value as a 64-bit two's complement integer in 8 little-endian bytes;
 * a {@link KeyType#STRING} key is {@link KeyCollation#keyBytes} of it (its UTF-8 bytes under {@code
 * key_collation: binary}, its collation weights otherwise). The bucket is the hash read as an unsigned
 * 32-bit number, modulo the table's bucket count. Hand-written rather than taken from Guava so the
 * placement of rows never depends on a library upgrade.
 */
public final class KeyHash {
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private KeyHash() {}

    /** Bucket of an integer key among {@code buckets} virtual buckets. */
    public static int bucket(long key, int buckets) {
        return (int) (Integer.toUnsignedLong(murmur3(key)) % buckets);
    }

    /** Bucket of a binary string key among {@code buckets} virtual buckets. */
    public static int bucket(String key, int buckets) {
        return bucket(key, KeyCollation.BINARY, buckets);
    }

    /** Bucket of a string key compared under {@code collation} among {@code buckets} virtual buckets. */
    public static int bucket(String key, KeyCollation collation, int buckets) {
        return (int) (Integer.toUnsignedLong(murmur3(collation.keyBytes(key))) % buckets);
    }

    /** MurmurHash3 x86_32, seed 0. */
    public static int murmur3(byte[] data) {
        int h = 0;
        int blocks = data.length / 4;
        for (int i = 0; i < blocks; i++) {
            int k = (data[4 * i] & 0xff)
                    | (data[4 * i + 1] & 0xff) << 8
                    | (data[4 * i + 2] & 0xff) << 16
                    | (data[4 * i + 3] & 0xff) << 24;
            h ^= mixK(k);
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int k = 0;
        int tail = blocks * 4;
        switch (data.length & 3) {
            case 3:
                k ^= (data[tail + 2] & 0xff) << 16;
            // fall through
            case 2:
                k ^= (data[tail + 1] & 0xff) << 8;
            // fall through
            case 1:
                k ^= data[tail] & 0xff;
                h ^= mixK(k);
                break;
            default:
                break;
        }
        return fmix(h ^ data.length);
    }

    /**
     * {@link #murmur3(byte[])} of the key's 8 little-endian bytes, without the array: its two 4-byte
     * blocks are the low and the high half (every routed point select hashes one key).
     */
    static int murmur3(long key) {
        int h = 0;
        h ^= mixK((int) key);
        h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        h ^= mixK((int) (key >>> 32));
        h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        return fmix(h ^ 8);
    }

    private static int fmix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    private static int mixK(int k) {
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        return k * C2;
    }
}
