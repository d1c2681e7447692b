package io.shardgate.protocol.auth;

/**
 * A MySQL authentication plugin (Connection Phase, "Authentication Methods"), both sides: as a
 * client it answers the server's scramble and AuthMoreData; as a server it checks a client's answer
 * against a {@link StoredCredential}, never against a plaintext password.
 */
public interface AuthPlugin {
    /** The plugin name as sent in HandshakeV10, HandshakeResponse41 and AuthSwitchRequest. */
    String name();

    /**
     * Client side: the auth response for the handshake response or an AuthSwitchResponse.
     *
     * @param password the plaintext password; empty means no password (and gives an empty response)
     * @param seed the server's scramble (20 bytes, without trailing NUL)
     */
    byte[] initialResponse(String password, byte[] seed);

    /**
     * Client side: the answer to an AuthMoreData packet's data, or {@code null} when nothing is to be
     * sent and the server's OK or ERR follows.
     *
     * @param secureTransport whether the connection is TLS or a Unix socket (plaintext allowed)
     */
    byte[] onMoreData(String password, byte[] seed, byte[] moreData, boolean secureTransport);

    /**
     * Server side: whether {@code response} to {@code seed} proves knowledge of the password whose
     * hashes {@code credential} holds; false when the credential has no hash for this plugin.
     */
    boolean verify(StoredCredential credential, byte[] seed, byte[] response);
}
