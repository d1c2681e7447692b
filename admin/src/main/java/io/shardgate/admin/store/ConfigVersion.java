package io.shardgate.admin.store;

import java.util.Objects;

/**
 * One published cluster configuration: its version number and its complete documents. Version
 * numbers start at 1 (the seed) and grow by one per publish. Immutable.
 *
 * @param number the version number, at least 1
 * @param documents every document of this version
 */
public record ConfigVersion(long number, ConfigDocuments documents) {
    public ConfigVersion {
        if (number < 1) {
            throw new IllegalArgumentException("config version numbers start at 1, not " + number);
        }
        Objects.requireNonNull(documents, "documents");
    }
}
