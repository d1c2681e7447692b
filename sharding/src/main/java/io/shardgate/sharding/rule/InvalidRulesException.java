package io.shardgate.sharding.rule;

import java.util.List;

/** A rule document that fails validation; {@link #problems()} lists every problem found, in order. */
public final class InvalidRulesException extends Exception {
    private final List<String> problems;

    public InvalidRulesException(List<String> problems) {
        super("invalid sharding rules:\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
