package io.shardgate.router.config;

import java.util.List;

/** A configuration that cannot be used, with a message naming the offending key and why. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public ConfigException(String message) {
        super(message);
        this.problems = List.of(message);
    }

    /** {@code summary} followed by every problem, one per line. */
    public ConfigException(String summary, List<String> problems) {
        super(summary + ":\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem on its own, with its path; the message alone when there is no list. */
    public List<String> problems() {
        return problems;
    }
}
