package io.shardgate.admin.store;

import java.util.List;

/**
 * A check of a whole configuration before it is published and again before a router accepts it.
 *
 * <p>The store is content-agnostic; router-core supplies the validator that parses the documents
 * into its rule model. A validator must be a pure function of the documents: publishers and
 * watchers run the same one and must reach the same verdict.
 */
@FunctionalInterface
public interface ConfigValidator {
    /**
     * Returns the problems found, each a sentence an operator can act on ("schemas: table sbtest1
     * names hostgroup 30, which does not exist"); an empty list means valid.
     */
    List<String> validate(ConfigDocuments documents);

    /** A validator that accepts everything the store itself can hold. */
    static ConfigValidator acceptAll() {
        return documents -> List.of();
    }
}
