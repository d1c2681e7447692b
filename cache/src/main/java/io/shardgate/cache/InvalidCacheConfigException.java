package io.shardgate.cache;

import java.util.List;

/** A {@code cache} section that cannot be used: every problem, each prefixed with its path. */
public final class InvalidCacheConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    InvalidCacheConfigException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One sentence each, in the order of the section's keys. */
    public List<String> problems() {
        return problems;
    }
}
