package io.shardgate.router.control;

import io.shardgate.admin.store.ConfigConflictException;
import io.shardgate.admin.store.ConfigVersion;
import io.shardgate.admin.store.InvalidConfigException;
import io.shardgate.admin.store.RuleStoreException;
import io.shardgate.admin.store.ZkRuleStore;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a router does at start when the cluster's root already holds a version: the stored version
 * wins over the YAML file's cluster sections, so a file edited since the first start would be
 * ignored. That must not go unnoticed: the sections that differ are logged as a WARN with the ways
 * out, or, with {@code zookeeper.publish_on_start} ({@code run --publish-config}), the file's
 * sections are published as the next version, validated as any other, and run.
 */
final class StartupPublisher {
    private static final Logger log = LoggerFactory.getLogger(StartupPublisher.class);
    /** Routers starting together with the same file: a conflict is re-checked against the winner. */
    private static final int ATTEMPTS = 3;

    private final RouterConfig file;
    private final ZkRuleStore store;

    StartupPublisher(RouterConfig file, ZkRuleStore store) {
        this.file = file;
        this.store = store;
    }

    /**
     * The version to run: {@code stored} when the file agrees with it or publishing was not asked
     * for (then with a WARN naming the differences), else the version this call published.
     *
     * @throws ConfigException when publishing was asked for and the version was refused or could not
     *     be written
     */
    ConfigVersion reconcile(ConfigVersion stored, Duration wait) throws InterruptedException {
        ConfigVersion running = stored;
        for (int attempt = 1; ; attempt++) {
            List<String> drift = ConfigDrift.between(file, running.documents());
            if (drift.isEmpty()) {
                log.info("the YAML file's cluster sections match config version {}", running.number());
                return running;
            }
            if (!file.zookeeper().publishOnStart()) {
                log.warn(warning(file.zookeeper().root(), running.number(), drift));
                return running;
            }
            try {
                ConfigVersion written = store.publish(running.number(), ClusterDocuments.of(file));
                log.info(
                        "published the YAML file's sections as config version {} of {} (publish_on_start; version {}"
                                + " differed in: {})",
                        written.number(),
                        file.zookeeper().root(),
                        running.number(),
                        String.join("; ", drift));
                return store.awaitVersion(written.number(), wait).orElse(written);
            } catch (InvalidConfigException e) {
                throw new ConfigException("publish_on_start: the cluster refused the YAML file's sections as version "
                        + (running.number() + 1) + ":\n  - " + String.join("\n  - ", e.problems()));
            } catch (ConfigConflictException e) {
                if (attempt == ATTEMPTS) {
                    throw new ConfigException("publish_on_start: "
                            + file.zookeeper().root() + " kept moving while publishing the YAML file (" + e.getMessage()
                            + "); start again");
                }
                running = store.awaitVersion(running.number() + 1, wait).orElse(running);
            } catch (RuleStoreException e) {
                throw new ConfigException("publish_on_start: could not publish the YAML file's sections to "
                        + file.zookeeper().root() + ": " + e.getMessage());
            }
        }
    }

    /** The WARN: which sections the router ignores in the file, and the ways out. */
    static String warning(String root, long version, List<String> drift) {
        return "the YAML file's cluster sections differ from config version " + version + " in ZooKeeper " + root
                + ", which this router runs: the file only seeds an empty root, so these edits are IGNORED: "
                + String.join("; ", drift)
                + ". To run the file, restart with 'bin/shardgate run --config FILE --publish-config'"
                + " (or zookeeper.publish_on_start: true) or publish it with 'bin/shardgate admin apply --config FILE';"
                + " to keep the cluster's version, make the file match it ('bin/shardgate admin show')";
    }
}
