package io.shardgate.router.merge;

/**
 * The shard responses to one statement cannot be merged: they disagree in shape (column counts or
 * types, an OK beside a result set) or contain a packet a complete response cannot hold. The
 * session answers the client with an ERR carrying this message.
 */
public final class MergeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MergeException(String message) {
        super(message);
    }
}
