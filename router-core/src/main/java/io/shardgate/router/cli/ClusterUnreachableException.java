package io.shardgate.router.cli;

/**
 * {@code shardgate admin} could not talk to the cluster: the router's HTTP endpoint or ZooKeeper
 * did not answer. The message says which address failed, why, and what to try; the command
 * prints it and exits with 1.
 */
final class ClusterUnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ClusterUnreachableException(String message) {
        super(message);
    }

    /**
     * What went wrong, from the first cause with a message; the exception's kind when none has one
     * (a refused HTTP connection is a {@code ConnectException} without a message).
     */
    static String reason(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getMessage();
            }
        }
        return failure instanceof java.net.ConnectException
                ? "connection refused"
                : failure.getClass().getSimpleName();
    }
}
