package io.shardgate.router.server;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.backend.BackendLogin;
import io.shardgate.router.config.HostgroupConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the router learns from its default hostgroup's writer at startup: the version to announce and
 * the MariaDB extensions clients may use through the relay.
 */
public final class BackendProbe {
    private static final Logger log = LoggerFactory.getLogger(BackendProbe.class);
    /** Announced when the backend cannot be asked for its own version at startup. */
    public static final String FALLBACK_VERSION = "8.0.40";

    private BackendProbe() {}

    /** The version string clients see: the configured one, else the backend's with a suffix. */
    public static String announcedVersion(String configured, HandshakeV10 backend) {
        return configured != null
                ? configured
                : (backend != null ? backend.serverVersion() : FALLBACK_VERSION) + "-Shardgate";
    }

    /**
     * MariaDB extended capabilities to offer clients: only those whose packets the relay passes
     * through unchanged. Extended type info (JSON, UUID... in column definitions) is; progress
     * reports (ERR-shaped packets mid-result), metadata caching and bulk execution are not.
     */
    public static int relayableMariaDbCapabilities(HandshakeV10 backend) {
        if (backend == null || (backend.capabilities().flags() & CapabilityFlags.CLIENT_LONG_PASSWORD) != 0) {
            return 0; // MySQL, or unknown: plain MySQL protocol
        }
        return backend.capabilities().mariaDbFlags() & CapabilityFlags.MARIADB_CLIENT_EXTENDED_TYPE_INFO;
    }

    /**
     * Greets the default hostgroup's writer, so clients that adapt to the server (MariaDB vs
     * MySQL, 8.0 features) see the version and extensions they will actually talk to; null when
     * it cannot be reached at startup.
     */
    public static HandshakeV10 probe(BackendConnector connector, EventLoopGroup loops, HostgroupConfig hostgroup) {
        BackendLogin login = new BackendLogin(
                hostgroup.user(),
                hostgroup.withResolvedPassword().password(),
                null,
                Collations.UTF8MB4_GENERAL_CI,
                BackendConnector.BASE_CAPABILITIES,
                0,
                hostgroup.tlsSettings());
        Future<BackendConnection> probe = connector.connect(loops.next(), hostgroup.writerAddress(), login);
        probe.awaitUninterruptibly();
        if (probe.isSuccess()) {
            BackendConnection connection = probe.getNow();
            connection.close();
            return connection.handshake();
        }
        log.warn(
                "could not reach hostgroup {} writer {} at startup ({}); announcing version {}",
                hostgroup.id(),
                hostgroup.writer(),
                probe.cause().getMessage(),
                FALLBACK_VERSION);
        return null;
    }
}
