package io.shardgate.router.frontend;

import io.netty.handler.ssl.SslContext;
import io.shardgate.router.columns.SchemaTracker;
import io.shardgate.router.config.ServerSettings;
import io.shardgate.router.login.LoginFailures;
import io.shardgate.router.login.UserConnections;
import io.shardgate.router.login.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.move.MoveHolds;
import io.shardgate.router.resultcache.RouterResultCache;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.sharding.key.KeyGenerator;
import java.security.KeyPair;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything a client connection's handlers need, wired once at startup and shared by all
 * connections (all members are immutable or thread-safe).
 *
 * @param settings the {@code server} section
 * @param users accounts clients log in with
 * @param tls context for CLIENT_SSL upgrades, or null when TLS is off
 * @param rsaKeys key pair for caching_sha2_password full authentication without TLS
 * @param rsaPublicKeyPem the public key as clients request it
 * @param serverVersion version string announced in the handshake
 * @param mariaDbCapabilities MariaDB extended capabilities offered to clients (0: plain MySQL)
 * @param hostgroups every hostgroup with its connection pools
 * @param routing the sharding rules in force and the plan cache
 * @param connectionIds source of the connection ids clients see
 * @param metrics meters the sessions update (commands, errors)
 * @param sessions the logged-in sessions, for the admin interface
 * @param keys generates the sharding keys of rows inserted without one (tables with key_generation)
 * @param cache the result cache (disabled unless the {@code cache} section enables it)
 * @param loginFailures failed logins per client address ({@code server.max_login_failures})
 * @param userConnections connections per user ({@code users[].max_connections})
 * @param schemaTracker re-reads the shards' column lists after DDL run on several hostgroups
 * @param twoPhase xids, the decision table and meters of two-phase commit (two_phase schemas)
 * @param moves the tables of the moves under way and the statements waiting for a cutover
 */
public record FrontendServices(
        ServerSettings settings,
        UserDirectory users,
        SslContext tls,
        KeyPair rsaKeys,
        String rsaPublicKeyPem,
        String serverVersion,
        int mariaDbCapabilities,
        Hostgroups hostgroups,
        RoutingRules routing,
        AtomicInteger connectionIds,
        RouterMetrics metrics,
        SessionRegistry sessions,
        KeyGenerator keys,
        RouterResultCache cache,
        LoginFailures loginFailures,
        UserConnections userConnections,
        SchemaTracker schemaTracker,
        TwoPhase twoPhase,
        MoveHolds moves) {}
