package io.shardgate.protocol.packet;

import io.shardgate.protocol.type.CapabilityFlags;

/**
 * Negotiated capability flags (Protocol::CapabilityFlags, see {@link CapabilityFlags}), plus MariaDB's
 * extended capabilities, which MariaDB sends in reserved handshake bytes when it clears
 * CLIENT_LONG_PASSWORD (its CLIENT_MYSQL bit); 0 for MySQL peers.
 */
public record Capabilities(int flags, int mariaDbFlags) {
    /** No capability at all. */
    public static final Capabilities NONE = new Capabilities(0, 0);

    /** Capabilities without MariaDB extensions. */
    public Capabilities(int flags) {
        this(flags, 0);
    }

    /** Whether every bit of {@code flag} (a {@code CLIENT_*} constant) is set. */
    public boolean has(int flag) {
        return (flags & flag) == flag;
    }

    /** Whether every bit of {@code flag} (a {@code MARIADB_CLIENT_*} constant) is set. */
    public boolean hasMariaDb(int flag) {
        return (mariaDbFlags & flag) == flag;
    }

    /** These capabilities plus {@code flag}. */
    public Capabilities with(int flag) {
        return new Capabilities(flags | flag, mariaDbFlags);
    }

    /** These capabilities minus {@code flag}. */
    public Capabilities without(int flag) {
        return new Capabilities(flags & ~flag, mariaDbFlags);
    }

    /** The capabilities both sides have: what a connection may use after the handshake. */
    public Capabilities and(Capabilities other) {
        return new Capabilities(flags & other.flags, mariaDbFlags & other.mariaDbFlags);
    }

    @Override
    public String toString() {
        return "Capabilities(0x" + Integer.toHexString(flags)
                + (mariaDbFlags != 0 ? ", mariaDb=0x" + Integer.toHexString(mariaDbFlags) : "") + ")";
    }
}
