package io.shardgate.router.server;

import io.netty.channel.EventLoopGroup;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.twophase.Resolver;
import io.shardgate.router.twophase.RouterEpochs;
import io.shardgate.router.twophase.TwoPhase;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Two-phase commit at startup: this router's xid epoch and the periodic resolver. */
public final class TwoPhaseStartup {
    private static final Logger log = LoggerFactory.getLogger(TwoPhaseStartup.class);
    /** How often the two-phase resolver looks for prepared branches (see docs/transactions.md). */
    static final long RESOLVER_PERIOD_MILLIS = 2_000;
    /**
     * How long a live router has to finish its commit before a resolver acts on a branch it sees
     * prepared (commits it by the decision row, or fences it when there is none).
     */
    static final long RESOLVER_GRACE_MILLIS = 10_000;

    private TwoPhaseStartup() {}

    /**
     * Takes this router's xid epoch before clients are let in, so two_phase transactions work from
     * the first one; when ZooKeeper does not answer in time, the resolver keeps trying and such
     * transactions are refused (ERROR 1235) until it does.
     */
    public static void takeEpoch(RouterEpochs transactions, long timeoutMillis) {
        try {
            log.info("two-phase commit: this router's xid epoch is {}", transactions.start(timeoutMillis));
        } catch (Exception e) {
            log.warn("no xid epoch from ZooKeeper yet ({}): two_phase transactions wait for it", e.toString());
        }
    }

    /** The resolver of in-doubt transactions, started. */
    public static Resolver startResolver(
            TwoPhase twoPhase,
            Hostgroups hostgroups,
            BackendConnector connector,
            EventLoopGroup workers,
            CuratorFramework curator,
            String root) {
        Resolver resolver = new Resolver(
                twoPhase.epochs(),
                twoPhase.decisions(),
                twoPhase.metrics(),
                hostgroups,
                connector,
                workers,
                curator,
                root,
                RESOLVER_PERIOD_MILLIS,
                RESOLVER_GRACE_MILLIS);
        resolver.start();
        return resolver;
    }
}
