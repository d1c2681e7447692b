package io.shardgate.router.tls;

/**
 * A certificate or key file that cannot be read, written or used, with a message that names the file
 * and says why (missing, unreadable, not PEM, encrypted, or not matching its partner).
 */
public final class KeyMaterialException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KeyMaterialException(String message) {
        super(message);
    }

    public KeyMaterialException(String message, Throwable cause) {
        super(message, cause);
    }
}
