package io.shardgate.router.config;

/** A configuration that cannot be used, with a message naming the offending key and why. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
