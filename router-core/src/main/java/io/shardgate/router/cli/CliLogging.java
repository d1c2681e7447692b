package io.shardgate.router.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/**
 * Logging while {@code shardgate admin} talks to ZooKeeper directly: the command's answer is its
 * output, so the ZooKeeper and Curator clients' lines (connection attempts, reconnect warnings with
 * stack traces) and the rule store's progress are switched off; the store's warnings (a refused
 * version) stay.
 */
final class CliLogging {
    private CliLogging() {}

    static void quietZooKeeperClient() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another SLF4J binding: its own configuration decides
        }
        context.getLogger("org.apache.zookeeper").setLevel(Level.OFF);
        context.getLogger("org.apache.curator").setLevel(Level.OFF);
        Logger store = context.getLogger("io.shardgate.admin.store");
        store.setLevel(Level.WARN);
    }
}
