package io.shardgate.protocol.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;

/**
 * The mysql_native_password plugin (Native Authentication): the client sends
 * SHA1(password) XOR SHA1(seed + SHA1(SHA1(password))); the server, which stores only the stage-two
 * hash SHA1(SHA1(password)) (the hex behind MySQL's "*..." form), recovers SHA1(password) with the
 * XOR and checks that its SHA1 is the stored hash.
 */
public final class MySqlNativePassword implements AuthPlugin {
    public static final String NAME = "mysql_native_password";
    /** Length of the seed and of the response. */
    public static final int SCRAMBLE_LENGTH = 20;

    @Override
    public String name() {
        return NAME;
    }

    /** SHA1(SHA1(password)): what the server stores; empty for an empty password. */
    public static byte[] stageTwoHash(String password) {
        if (password.isEmpty()) {
            return new byte[0];
        }
        return Digests.sha1(Digests.sha1(password.getBytes(UTF_8)));
    }

    /** The scramble of {@code password} for {@code seed}; empty for an empty password. */
    public static byte[] scramble(String password, byte[] seed) {
        if (password.isEmpty()) {
            return new byte[0];
        }
        byte[] stage1 = Digests.sha1(password.getBytes(UTF_8));
        byte[] stage2 = Digests.sha1(stage1);
        return Digests.xor(stage1, Digests.sha1(seed, stage2));
    }

    @Override
    public byte[] initialResponse(String password, byte[] seed) {
        return scramble(password, seed);
    }

    /** mysql_native_password has no further round trips: nothing to answer. */
    @Override
    public byte[] onMoreData(String password, byte[] seed, byte[] moreData, boolean secureTransport) {
        return null;
    }

    @Override
    public boolean verify(StoredCredential credential, byte[] seed, byte[] response) {
        byte[] stage2 = credential.nativeHash();
        if (stage2 == null) {
            return false;
        }
        if (stage2.length == 0 || response.length == 0) {
            return stage2.length == 0 && response.length == 0;
        }
        if (response.length != SCRAMBLE_LENGTH || stage2.length != SCRAMBLE_LENGTH) {
            return false;
        }
        byte[] stage1 = Digests.xor(response, Digests.sha1(seed, stage2));
        return MessageDigest.isEqual(Digests.sha1(stage1), stage2);
    }
}
