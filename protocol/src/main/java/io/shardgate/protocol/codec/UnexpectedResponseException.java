package io.shardgate.protocol.codec;

/** A server sent bytes that no outstanding command can explain; the connection must be closed. */
public final class UnexpectedResponseException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnexpectedResponseException(String message) {
        super(message);
    }
}
