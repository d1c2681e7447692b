package io.shardgate.router.login;

import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.auth.MySqlNativePassword;
import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.config.UserConfig;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of one authentication exchange (login or COM_CHANGE_USER): verifies the
 * client's scramble with the plugin it chose, switches it to a plugin the stored hashes can check,
 * and runs caching_sha2_password's full authentication (plaintext over TLS, or RSA-encrypted with
 * the router's key) when only a mysql_native_password hash is known.
 *
 * <p>Not thread-safe: one exchange per connection, on its event loop.
 */
public final class ClientAuthentication {
    private static final Logger log = LoggerFactory.getLogger(ClientAuthentication.class);
    static final String NATIVE = "mysql_native_password";
    static final String SHA2 = "caching_sha2_password";

    /** What to do next. */
    public sealed interface Step permits Success, Send, Denied {}

    /** Authenticated; {@code fastAuthMarker} asks for 0x01 0x03 before the OK (caching_sha2 fast path). */
    public record Success(UserConfig user, boolean fastAuthMarker) implements Step {}

    /** Send this payload (AuthSwitchRequest or AuthMoreData) and wait for the client's reply. */
    public record Send(byte[] payload) implements Step {}

    /** Refuse with this error and close. */
    public record Denied(ErrPacket error) implements Step {}

    private enum State {
        START,
        SWITCHED,
        FULL_AUTH,
        DONE
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final MySqlNativePassword NATIVE_PLUGIN = new MySqlNativePassword();
    private static final CachingSha2Password SHA2_PLUGIN = new CachingSha2Password();

    private final UserDirectory users;
    private final KeyPair rsaKeys;
    private final String rsaPublicKeyPem;
    private final boolean secureTransport;
    private final String remoteHost;
    private State state = State.START;
    private UserConfig user;
    private String userName;
    private String plugin;
    private byte[] seed;
    private boolean passwordGiven;

    public ClientAuthentication(
            UserDirectory users, KeyPair rsaKeys, String rsaPublicKeyPem, boolean secureTransport, String remoteHost) {
        this.users = users;
        this.rsaKeys = rsaKeys;
        this.rsaPublicKeyPem = rsaPublicKeyPem;
        this.secureTransport = secureTransport;
        this.remoteHost = remoteHost;
    }

    /** A 20-byte scramble of printable ASCII without NUL, as MySQL servers generate. */
    public static byte[] newSeed() {
        byte[] seed = new byte[20];
        for (int i = 0; i < seed.length; i++) {
            seed[i] = (byte) (0x21 + RANDOM.nextInt(0x7E - 0x21));
        }
        return seed;
    }

    /** First response: from HandshakeResponse41 or COM_CHANGE_USER. */
    public Step start(String userName, String clientPlugin, byte[] response, byte[] seed) {
        this.userName = userName;
        this.seed = seed;
        this.passwordGiven = response.length > 0;
        this.user = users.find(userName);
        String chosen = clientPlugin == null ? NATIVE : clientPlugin;
        if (user == null) {
            return denied();
        }
        StoredCredential credential = users.credential(user);
        if (chosen.equals(NATIVE) && credential.nativeHash() != null) {
            return verifyNative(credential, response);
        }
        if (chosen.equals(SHA2)) {
            plugin = SHA2;
            return sha2(credential, response);
        }
        // the client used another plugin, or native without a native hash: switch
        plugin = credential.nativeHash() != null ? NATIVE : SHA2;
        this.seed = newSeed();
        state = State.SWITCHED;
        return new Send(authSwitch(plugin, this.seed));
    }

    /** A later packet of the exchange (auth switch response, public key request, password). */
    public Step next(byte[] payload) {
        StoredCredential credential = users.credential(user);
        switch (state) {
            case SWITCHED -> {
                state = State.START;
                passwordGiven = payload.length > 0;
                return plugin.equals(NATIVE) ? verifyNative(credential, payload) : sha2(credential, payload);
            }
            case FULL_AUTH -> {
                return fullAuth(credential, payload);
            }
            default -> {
                return denied();
            }
        }
    }

    private Step verifyNative(StoredCredential credential, byte[] response) {
        state = State.DONE;
        return NATIVE_PLUGIN.verify(credential, seed, response) ? success(false) : denied();
    }

    private Step sha2(StoredCredential credential, byte[] response) {
        if (credential.sha2Hash() != null) {
            state = State.DONE;
            // an empty password is answered with an empty response and a plain OK
            boolean valid = SHA2_PLUGIN.verify(credential, seed, response);
            return valid ? success(response.length > 0) : denied();
        }
        // only a native hash is known: the client must send the password itself
        state = State.FULL_AUTH;
        return new Send(moreData(new byte[] {CachingSha2Password.PERFORM_FULL_AUTHENTICATION}));
    }

    private Step fullAuth(StoredCredential credential, byte[] payload) {
        byte[] password;
        if (payload.length == 1 && payload[0] == CachingSha2Password.REQUEST_PUBLIC_KEY) {
            return new Send(moreData(rsaPublicKeyPem.getBytes(StandardCharsets.US_ASCII)));
        }
        if (secureTransport) {
            password = CachingSha2Password.passwordFromPlaintext(payload);
        } else {
            try {
                password = CachingSha2Password.decryptPassword(payload, seed, rsaKeys.getPrivate());
            } catch (GeneralSecurityException | RuntimeException e) {
                state = State.DONE;
                return denied();
            }
        }
        state = State.DONE;
        passwordGiven = password.length > 0;
        StoredCredential candidate = StoredCredential.fromPassword(new String(password, StandardCharsets.UTF_8));
        Arrays.fill(password, (byte) 0);
        if (!java.security.MessageDigest.isEqual(candidate.nativeHash(), credential.nativeHash())) {
            return denied();
        }
        users.learn(user, candidate);
        return success(false);
    }

    /**
     * The password is right; an account with {@code require_tls} still needs TLS. MySQL answers a
     * REQUIRE SSL account's plaintext login with the same ER_ACCESS_DENIED_ERROR as a wrong password
     * (so the reason is not told to whoever tries), and says why only in its own log.
     */
    private Step success(boolean fastAuthMarker) {
        state = State.DONE;
        if (user.requireTls() && !secureTransport) {
            log.warn(
                    "user '{}' from {} refused: the account requires TLS (require_tls: true) and the client"
                            + " connected without it",
                    userName,
                    remoteHost);
            return denied();
        }
        return new Success(user, fastAuthMarker);
    }

    private Denied denied() {
        state = State.DONE;
        return new Denied(
                ErrPacket.of(ErrorCode.ER_ACCESS_DENIED_ERROR, userName, remoteHost, passwordGiven ? "YES" : "NO"));
    }

    private static byte[] authSwitch(String plugin, byte[] seed) {
        byte[] name = plugin.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[1 + name.length + 1 + seed.length + 1];
        out[0] = (byte) 0xFE;
        System.arraycopy(name, 0, out, 1, name.length);
        System.arraycopy(seed, 0, out, name.length + 2, seed.length);
        return out;
    }

    private static byte[] moreData(byte[] data) {
        byte[] out = new byte[data.length + 1];
        out[0] = 0x01;
        System.arraycopy(data, 0, out, 1, data.length);
        return out;
    }

    /** The plugin the exchange settled on. */
    String plugin() {
        return plugin == null ? NATIVE : plugin;
    }
}
