package io.shardgate.protocol.auth;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The password hashes a server side needs to authenticate a user without the plaintext:
 * mysql_native_password's SHA1(SHA1(password)) and caching_sha2_password's
 * SHA256(SHA256(password)). A null hash means that plugin cannot verify this user; empty arrays
 * mean the user has no password.
 *
 * <p>Rendered for configuration files as MySQL's {@code *HEX40} native form and/or {@code sha2:HEX64},
 * separated by a space; the empty string means no password.
 *
 * @param nativeHash 20 bytes, empty or null
 * @param sha2Hash 32 bytes, empty or null
 */
public record StoredCredential(byte[] nativeHash, byte[] sha2Hash) {
    /** A user without a password. */
    public static final StoredCredential NO_PASSWORD = new StoredCredential(new byte[0], new byte[0]);

    private static final HexFormat HEX = HexFormat.of().withUpperCase();
    private static final String SHA2_PREFIX = "sha2:";
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    public StoredCredential {
        checkLength(nativeHash, 20, "nativeHash");
        checkLength(sha2Hash, 32, "sha2Hash");
        if (nativeHash == null && sha2Hash == null) {
            throw new IllegalArgumentException("a credential needs at least one hash");
        }
    }

    /** Both hashes of {@code password}; the empty password gives {@link #NO_PASSWORD}. */
    public static StoredCredential fromPassword(String password) {
        return new StoredCredential(
                MySqlNativePassword.stageTwoHash(password), CachingSha2Password.stageTwoHash(password));
    }

    /** The native hash in MySQL's {@code *HEX40} form (as from {@code PASSWORD()}), without a sha2 hash. */
    public static StoredCredential fromNativeHash(String star40) {
        if (star40.isEmpty()) {
            return new StoredCredential(new byte[0], null);
        }
        if (star40.length() != 41 || star40.charAt(0) != '*') {
            throw new IllegalArgumentException("a native password hash is '*' and 40 hex digits");
        }
        return new StoredCredential(HEX.parseHex(star40, 1, 41), null);
    }

    /** Parses what {@link #render()} produces. */
    public static StoredCredential parse(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            return NO_PASSWORD;
        }
        byte[] nativeHash = null;
        byte[] sha2Hash = null;
        for (String part : WHITESPACE.split(t)) {
            if (part.startsWith("*")) {
                nativeHash = fromNativeHash(part).nativeHash();
            } else if (part.toLowerCase(Locale.ROOT).startsWith(SHA2_PREFIX) && part.length() == 5 + 64) {
                sha2Hash = HEX.parseHex(part, 5, part.length());
            } else {
                throw new IllegalArgumentException("not a stored credential part: " + part);
            }
        }
        return new StoredCredential(nativeHash, sha2Hash);
    }

    /** The configuration-file form: {@code *HEX40 sha2:HEX64}, either part, or "" for no password. */
    public String render() {
        if ((nativeHash == null || nativeHash.length == 0) && (sha2Hash == null || sha2Hash.length == 0)) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        if (nativeHash != null) {
            sb.append('*').append(HEX.formatHex(nativeHash));
        }
        if (sha2Hash != null) {
            sb.append(sb.length() > 0 ? " " : "").append(SHA2_PREFIX).append(HEX.formatHex(sha2Hash));
        }
        return sb.toString();
    }

    /** Equal when both hashes have equal bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof StoredCredential other
                && Arrays.equals(nativeHash, other.nativeHash)
                && Arrays.equals(sha2Hash, other.sha2Hash);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(nativeHash) + Arrays.hashCode(sha2Hash);
    }

    /** Never prints the hashes. */
    @Override
    public String toString() {
        return "StoredCredential(native=" + (nativeHash != null) + ", sha2=" + (sha2Hash != null) + ")";
    }

    private static void checkLength(byte[] hash, int length, String what) {
        if (hash != null && hash.length != 0 && hash.length != length) {
            throw new IllegalArgumentException(what + " must have " + length + " bytes, not " + hash.length);
        }
    }
}
