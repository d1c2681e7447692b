package io.shardgate.admin.store;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The verdict on a whole configuration: what the store itself can hold (documents present, size),
 * then the injected validator. Publishers and watchers both ask this one.
 */
final class ConfigChecks {
    private final ConfigValidator validator;

    ConfigChecks(ConfigValidator validator) {
        this.validator = validator;
    }

    /** The problems found; empty when the configuration may be published and served. */
    List<String> problems(ConfigDocuments documents) {
        List<String> problems = new ArrayList<>();
        if (documents.sections().isEmpty()) {
            problems.add("the configuration has no documents");
        }
        long bytes = 0;
        for (Map.Entry<String, String> e : documents.sections().entrySet()) {
            bytes += e.getKey().length() + e.getValue().getBytes(UTF_8).length;
        }
        if (bytes > ZkRuleStore.MAX_VERSION_BYTES) {
            problems.add(
                    "the documents take " + bytes + " bytes; a version holds at most " + ZkRuleStore.MAX_VERSION_BYTES);
        }
        if (!problems.isEmpty()) {
            return problems;
        }
        try {
            problems.addAll(validator.validate(documents));
        } catch (RuntimeException e) {
            // a validator bug must not take the watcher down; it refuses the version instead
            problems.add("the validator failed: " + e);
        }
        return problems;
    }
}
