package io.shardgate.sharding.digest;

/** Comment hints that steer the result cache: {@code /*nocache*}{@code /} and {@code /*wipe*}{@code /}. */
public enum Hint {
    /** {@code /*nocache*}{@code /}: do not answer from, nor store into, the result cache. */
    NOCACHE,
    /** {@code /*wipe*}{@code /} or {@code /*refresh*}{@code /}: run on the backend and replace the cached result. */
    WIPE;

    int bit() {
        return 1 << ordinal();
    }
}
