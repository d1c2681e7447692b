package io.shardgate.admin.store;

import java.util.List;

/** A configuration refused before it was written because it failed validation. */
public final class InvalidConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public InvalidConfigException(List<String> problems) {
        super("invalid configuration: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** What is wrong, one sentence each. */
    public List<String> problems() {
        return problems;
    }
}
