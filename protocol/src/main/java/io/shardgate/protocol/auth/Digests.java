package io.shardgate.protocol.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-1 and SHA-256 as the MySQL scrambles use them: digests of concatenations, and XOR. */
final class Digests {
    private Digests() {}

    static byte[] sha1(byte[]... parts) {
        return digest("SHA-1", parts);
    }

    static byte[] sha256(byte[]... parts) {
        return digest("SHA-256", parts);
    }

    /** {@code a} XOR {@code b}, both of {@code a}'s length. */
    static byte[] xor(byte[] a, byte[] b) {
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (byte) (a[i] ^ b[i]);
        }
        return out;
    }

    private static byte[] digest(String algorithm, byte[]... parts) {
        try {
            // MessageDigest instances are not thread-safe; creating one is cheap next to hashing
            MessageDigest md = MessageDigest.getInstance(algorithm);
            for (byte[] part : parts) {
                md.update(part);
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is required of every Java platform", e);
        }
    }
}
