package io.shardgate.router.server;

import io.shardgate.move.ShardEndpoint;
import io.shardgate.router.config.BackendAddress;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.control.ClusterDocuments;
import io.shardgate.router.control.ControlPlane;
import io.shardgate.router.move.MoveContext;
import io.shardgate.router.move.MoveLog;
import io.shardgate.router.move.MoveMetrics;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.sharding.rule.InvalidRulesException;
import java.time.Duration;

/** What the router's moves run with (the mover's side of online resharding). */
public final class MoveContexts {
    private MoveContexts() {}

    /** Moves: cutover timings (docs/moves.md), the shards' writers and accounts from the running hostgroups. */
    public static MoveContext of(
            RouterConfig config, ControlPlane control, Hostgroups hostgroups, MoveMetrics metrics) {
        return new MoveContext(
                new MoveLog(control.curator(), config.zookeeper().root()),
                control.store(), // the stored documents as they are (the admin view hides backend passwords)
                documents -> {
                    ClusterDocuments.Reading reading = ClusterDocuments.read(config, documents);
                    if (reading.config() == null) {
                        throw new IllegalStateException("the configuration does not read: " + reading.problems());
                    }
                    try {
                        return reading.config().rules(0);
                    } catch (InvalidRulesException e) {
                        throw new IllegalStateException("the rules are invalid: " + e.problems(), e);
                    }
                },
                hg -> {
                    Hostgroup hostgroup = hostgroups.get(hg);
                    if (hostgroup == null) {
                        throw new IllegalArgumentException("hostgroup " + hg + " is not declared");
                    }
                    BackendAddress writer =
                            BackendAddress.parse(hostgroup.config().writer());
                    return new ShardEndpoint(
                            writer.host(), writer.port(), hostgroup.config().user(), hostgroup.backendPassword());
                },
                1000,
                // a cutover's hold stays well under a held statement's timeout (MoveHolds, 10 s)
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                Duration.ofSeconds(3),
                5,
                metrics);
    }
}
