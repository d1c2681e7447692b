package io.shardgate.router.server;

import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.frontend.FrontendServices;
import io.shardgate.router.frontend.SessionRegistry;
import io.shardgate.router.login.UserConnections;
import io.shardgate.router.login.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;

/** The SQL admin port's session services. */
public final class AdminServices {
    private AdminServices() {}

    /** The MySQL port's services, but logins check the admin accounts. */
    public static FrontendServices of(FrontendServices services, RouterConfig config) {
        return new FrontendServices(
                services.settings(),
                new UserDirectory(config.admin().users()),
                services.tls(),
                services.rsaKeys(),
                services.rsaPublicKeyPem(),
                services.serverVersion(),
                0,
                services.hostgroups(),
                services.routing(),
                services.connectionIds(),
                new RouterMetrics(), // admin logins and errors stay out of the data plane's meters
                new SessionRegistry(), // nor are they client sessions
                services.keys(),
                services.cache(),
                services.loginFailures(), // one address guessing passwords on either port is one attacker
                new UserConnections(),
                services.schemaTracker(),
                services.twoPhase(),
                services.moves());
    }
}
