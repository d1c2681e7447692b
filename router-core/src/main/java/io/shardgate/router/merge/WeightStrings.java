package io.shardgate.router.merge;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Collation weights as MariaDB's WEIGHT_STRING returns them, compared the way the server compares
 * the strings they weigh: byte by byte as unsigned numbers, and under a PAD SPACE collation with the
 * shorter weight extended by the weight of a space (so 'a' = 'a ' and 'a\t' &lt; 'a'). The pad is
 * what the shard computed for two spaces in the value's own collation ('' under NO PAD): a
 * single-level collation weighs them as one unit twice, a multi-level one (uca1400 *_as_cs) as
 * levels one after the other, where padding at the end is wrong, so those are refused.
 */
final class WeightStrings {
    private WeightStrings() {}

    /**
     * Orders two weights of one collation, {@code pad} being the weight of two spaces or empty;
     * {@code collation} names it in a refusal.
     */
    static int compare(byte[] a, byte[] b, byte[] pad, String collation) {
        byte[] unit = unit(pad, collation);
        int common = Math.min(a.length, b.length);
        int c = Arrays.compareUnsigned(a, 0, common, b, 0, common);
        if (c != 0 || a.length == b.length) {
            return c;
        }
        if (unit.length == 0) {
            return a.length < b.length ? -1 : 1;
        }
        byte[] longer = a.length > b.length ? a : b;
        int sign = a.length > b.length ? 1 : -1;
        aligned(a, unit, collation);
        aligned(b, unit, collation);
        for (int i = common; i < longer.length; i++) {
            int diff = (longer[i] & 0xFF) - (unit[(i - common) % unit.length] & 0xFF);
            if (diff != 0) {
                return diff < 0 ? -sign : sign;
            }
        }
        return 0;
    }

    /**
     * A value equal (equals and hashCode) for exactly the weights {@link #compare} finds equal: the
     * weight without its trailing space units, tagged with the pad so that weights of different
     * collations never meet in one group.
     */
    static String key(byte[] weight, byte[] pad, String collation) {
        byte[] unit = unit(pad, collation);
        int end = weight.length;
        if (unit.length > 0) {
            aligned(weight, unit, collation);
            while (end >= unit.length && Arrays.equals(weight, end - unit.length, end, unit, 0, unit.length)) {
                end -= unit.length;
            }
        }
        return new String(pad, StandardCharsets.ISO_8859_1)
                + '\u0100' // never a char of an ISO-8859-1 string: pad and weight cannot run together
                + new String(weight, 0, end, StandardCharsets.ISO_8859_1);
    }

    /** The weight of one space (half the weight of two), or empty under NO PAD. */
    private static byte[] unit(byte[] pad, String collation) {
        int half = pad.length / 2;
        if (pad.length % 2 != 0 || !Arrays.equals(pad, 0, half, pad, half, pad.length)) {
            throw MergeException.unsupported("comparing strings on several shards under collation " + collation
                    + ", which weighs characters on several levels: padding its weights with spaces is not proven"
                    + " exact");
        }
        return Arrays.copyOf(pad, half);
    }

    /** Weights of a single-level collation are whole units; anything else is not understood. */
    private static void aligned(byte[] weight, byte[] unit, String collation) {
        if (weight.length % unit.length != 0) {
            throw MergeException.unsupported("comparing strings on several shards under collation " + collation
                    + ": a weight of " + weight.length + " bytes is not made of " + unit.length + "-byte units");
        }
    }
}
