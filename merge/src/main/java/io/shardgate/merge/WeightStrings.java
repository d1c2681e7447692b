package io.shardgate.merge;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Collation weights as MariaDB's WEIGHT_STRING returns them, compared the way the server compares
 * the strings they weigh: byte by byte as unsigned numbers, and under a PAD SPACE collation with the
 * shorter weight extended by the weight of a space (so 'a' = 'a ' and 'a\t' &lt; 'a'). The pad is
 * what the shard computed in the value's own collation: 'P' (PAD SPACE) or 'N' (NO PAD), then the
 * weight of two spaces. A single-level collation weighs them as one unit twice; a multi-level one
 * (uca1400 *_as_cs, 0900_as_cs) as its levels one after the other without a separator, where
 * neither padding nor a plain byte comparison is proven exact, so those are refused.
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
            return a.length < b.length ? -1 : 1; // NO PAD: a proper prefix is less
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

    /**
     * The weight of one space under PAD SPACE, empty under NO PAD, from the shard's 'P' or 'N' and
     * the weight of two spaces, which a single-level collation makes of one unit twice.
     */
    private static byte[] unit(byte[] pad, String collation) {
        if (pad.length == 0 || (pad[0] != 'P' && pad[0] != 'N')) {
            throw new MergeException("a shard sent a malformed collation pad for " + collation);
        }
        int half = (pad.length - 1) / 2;
        if ((pad.length - 1) % 2 != 0 || half == 0 || !Arrays.equals(pad, 1, 1 + half, pad, 1 + half, pad.length)) {
            throw MergeException.unsupported("comparing strings on several shards under collation " + collation
                    + ", which weighs characters on several levels: its weight strings are not proven to compare"
                    + " as the strings do");
        }
        return pad[0] == 'P' ? Arrays.copyOfRange(pad, 1, 1 + half) : new byte[0];
    }

    /** Weights of a single-level collation are whole units; anything else is not understood. */
    private static void aligned(byte[] weight, byte[] unit, String collation) {
        if (weight.length % unit.length != 0) {
            throw MergeException.unsupported("comparing strings on several shards under collation " + collation
                    + ": a weight of " + weight.length + " bytes is not made of " + unit.length + "-byte units");
        }
    }
}
