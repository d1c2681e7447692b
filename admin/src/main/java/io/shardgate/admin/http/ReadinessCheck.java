package io.shardgate.admin.http;

import java.util.Optional;

/**
 * What, beyond a loaded configuration version, keeps a router from taking traffic: {@code GET
 * /ready} answers 503 with the reason while there is one, so a load balancer takes the router out.
 */
@FunctionalInterface
public interface ReadinessCheck {
    /** Ready as soon as a configuration version is loaded. */
    ReadinessCheck NONE = Optional::empty;

    /** Why the router should not get traffic now, or empty. Called per request; must not block. */
    Optional<String> notReadyBecause();
}
