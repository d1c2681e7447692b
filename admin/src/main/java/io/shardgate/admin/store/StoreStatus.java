package io.shardgate.admin.store;

import java.util.Optional;

/**
 * What a rule store serves right now, for admin views and readiness.
 *
 * @param currentVersion the accepted version number, 0 while none has been accepted
 * @param connected whether the ZooKeeper session is connected at the moment
 * @param lastRejection the most recent refused version, if any
 */
public record StoreStatus(long currentVersion, boolean connected, Optional<ConfigRejection> lastRejection) {}
