package io.shardgate.protocol.auth;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;

/**
 * The caching_sha2_password plugin (MySQL 8.0's default, "Caching_sha2_password information").
 *
 * <p>Fast authentication: the client sends XOR(SHA256(password), SHA256(SHA256(SHA256(password)) +
 * seed)); a server holding SHA256(SHA256(password)) recovers SHA256(password) and compares its hash,
 * then sends AuthMoreData {@code 0x03}. Otherwise the server sends {@code 0x04} (full authentication)
 * and the client sends its password NUL-terminated in plaintext when the transport is secure, or asks
 * for the server's RSA public key ({@code 0x02}), receives it as PEM in AuthMoreData and sends
 * RSA-OAEP(SHA-1) of (password + NUL) XOR the seed repeated.
 */
public final class CachingSha2Password implements AuthPlugin {
    public static final String NAME = "caching_sha2_password";
    /** Client to server: request the server's RSA public key. */
    public static final byte REQUEST_PUBLIC_KEY = 0x02;
    /** AuthMoreData data byte: the fast scramble matched; an OK_Packet follows. */
    public static final byte FAST_AUTH_SUCCESS = 0x03;
    /** AuthMoreData data byte: the server needs the password (full authentication). */
    public static final byte PERFORM_FULL_AUTHENTICATION = 0x04;
    /** RSA padding MySQL uses (OpenSSL RSA_PKCS1_OAEP_PADDING). */
    public static final String RSA_TRANSFORMATION = "RSA/ECB/OAEPWithSHA-1AndMGF1Padding";

    @Override
    public String name() {
        return NAME;
    }

    /** SHA256(SHA256(password)): what a server needs for fast authentication; empty for no password. */
    public static byte[] stageTwoHash(String password) {
        if (password.isEmpty()) {
            return new byte[0];
        }
        return Digests.sha256(Digests.sha256(password.getBytes(UTF_8)));
    }

    /** The fast-authentication scramble of {@code password} for {@code seed}; empty for no password. */
    public static byte[] scramble(String password, byte[] seed) {
        if (password.isEmpty()) {
            return new byte[0];
        }
        byte[] stage1 = Digests.sha256(password.getBytes(UTF_8));
        byte[] stage2 = Digests.sha256(stage1);
        return Digests.xor(stage1, Digests.sha256(stage2, seed));
    }

    @Override
    public byte[] initialResponse(String password, byte[] seed) {
        return scramble(password, seed);
    }

    @Override
    public byte[] onMoreData(String password, byte[] seed, byte[] moreData, boolean secureTransport) {
        if (moreData.length == 1 && moreData[0] == FAST_AUTH_SUCCESS) {
            return null;
        }
        if (moreData.length == 1 && moreData[0] == PERFORM_FULL_AUTHENTICATION) {
            return secureTransport ? plaintextPassword(password) : new byte[] {REQUEST_PUBLIC_KEY};
        }
        String text = new String(moreData, US_ASCII);
        if (text.startsWith("-----BEGIN PUBLIC KEY-----")) {
            return encryptPassword(password, seed, parsePublicKey(text));
        }
        throw new IllegalArgumentException("unexpected caching_sha2_password data of " + moreData.length + " bytes");
    }

    @Override
    public boolean verify(StoredCredential credential, byte[] seed, byte[] response) {
        byte[] stage2 = credential.sha2Hash();
        if (stage2 == null) {
            return false;
        }
        if (stage2.length == 0 || response.length == 0) {
            return stage2.length == 0 && response.length == 0;
        }
        if (response.length != 32 || stage2.length != 32) {
            return false;
        }
        byte[] stage1 = Digests.xor(response, Digests.sha256(stage2, seed));
        return MessageDigest.isEqual(Digests.sha256(stage1), stage2);
    }

    /** Server side of full authentication: whether a plaintext password matches the credential. */
    public boolean verifyPassword(StoredCredential credential, byte[] password) {
        byte[] stage2 = credential.sha2Hash();
        if (stage2 == null) {
            return false;
        }
        byte[] expected = password.length == 0 ? new byte[0] : Digests.sha256(Digests.sha256(password));
        return MessageDigest.isEqual(expected, stage2);
    }

    /** The password NUL-terminated, as sent in full authentication over a secure transport. */
    public static byte[] plaintextPassword(String password) {
        byte[] bytes = password.getBytes(UTF_8);
        return Arrays.copyOf(bytes, bytes.length + 1);
    }

    /** Server side: the password from a plaintext full-authentication response (without its NUL). */
    public static byte[] passwordFromPlaintext(byte[] response) {
        int end = response.length > 0 && response[response.length - 1] == 0 ? response.length - 1 : response.length;
        return Arrays.copyOf(response, end);
    }

    /** Client side: RSA-OAEP of (password + NUL) XOR the seed repeated. */
    public static byte[] encryptPassword(String password, byte[] seed, PublicKey serverKey) {
        byte[] xored = xorWithSeed(plaintextPassword(password), seed);
        try {
            Cipher cipher = Cipher.getInstance(RSA_TRANSFORMATION);
            cipher.init(Cipher.ENCRYPT_MODE, serverKey);
            return cipher.doFinal(xored);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot RSA-encrypt the password", e);
        }
    }

    /**
     * Server side: the password (without its NUL) from an RSA-encrypted full-authentication response.
     *
     * @throws GeneralSecurityException when {@code encrypted} was not made with this key
     */
    public static byte[] decryptPassword(byte[] encrypted, byte[] seed, PrivateKey serverKey)
            throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance(RSA_TRANSFORMATION);
        cipher.init(Cipher.DECRYPT_MODE, serverKey);
        return passwordFromPlaintext(xorWithSeed(cipher.doFinal(encrypted), seed));
    }

    /** The PEM ("BEGIN PUBLIC KEY", X.509 SubjectPublicKeyInfo) the server sends on request. */
    public static String toPem(PublicKey key) {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded());
        return "-----BEGIN PUBLIC KEY-----\n" + body + "\n-----END PUBLIC KEY-----\n";
    }

    /** Parses a "BEGIN PUBLIC KEY" PEM as sent by a MySQL server. */
    public static PublicKey parsePublicKey(String pem) {
        String body = pem.replace("-----BEGIN PUBLIC KEY-----", "")
                .replace("-----END PUBLIC KEY-----", "")
                .replaceAll("[\\s\\x00]", "");
        try {
            return KeyFactory.getInstance("RSA")
                    .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(body)));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an RSA public key PEM", e);
        }
    }

    private static byte[] xorWithSeed(byte[] data, byte[] seed) {
        byte[] out = new byte[data.length];
        for (int i = 0; i < data.length; i++) {
            out[i] = (byte) (data[i] ^ seed[i % seed.length]);
        }
        return out;
    }
}
