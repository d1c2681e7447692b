package io.shardgate.it.scale;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.shardgate.admin.store.ConfigDocuments;
import java.util.Map;

/**
 * The bytes of one stored configuration version as the rule store counts them against {@code
 * ZkRuleStore.MAX_VERSION_BYTES}: each document's name plus its UTF-8 text (admin's {@code
 * ConfigChecks}). ZooKeeper writes the whole version in one multi-op request, which jute.maxbuffer
 * (1 MiB by default) bounds.
 */
final class ConfigSize {
    private ConfigSize() {}

    static long of(ConfigDocuments documents) {
        long bytes = 0;
        for (Map.Entry<String, String> e : documents.sections().entrySet()) {
            bytes += e.getKey().length() + e.getValue().getBytes(UTF_8).length;
        }
        return bytes;
    }
}
