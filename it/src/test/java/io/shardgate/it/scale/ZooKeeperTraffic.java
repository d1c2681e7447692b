package io.shardgate.it.scale;

import io.shardgate.it.server.ZooKeeperEnsemble;
import org.apache.zookeeper.server.ServerMetrics;
import org.apache.zookeeper.server.ServerStats;

/**
 * A reading of the ensemble's client traffic counters: packets received and sent on the client
 * ports of all members ({@link ServerStats}), and bytes received, response bytes and watch
 * notification bytes ({@link ServerMetrics}; the in-process members share one metrics object, so
 * these are ensemble totals). Quorum traffic between the members is not included.
 */
record ZooKeeperTraffic(
        long packetsReceived, long packetsSent, long bytesReceived, long responseBytes, long watchBytes) {

    static ZooKeeperTraffic read(ZooKeeperEnsemble ensemble) {
        long in = 0;
        long out = 0;
        for (int i = 0; i < ensemble.size(); i++) {
            ServerStats stats = ensemble.stats(i);
            if (stats != null) {
                in += stats.getPacketsReceived();
                out += stats.getPacketsSent();
            }
        }
        ServerMetrics m = ServerMetrics.getMetrics();
        return new ZooKeeperTraffic(in, out, m.BYTES_RECEIVED_COUNT.get(), m.RESPONSE_BYTES.get(), m.WATCH_BYTES.get());
    }

    ZooKeeperTraffic minus(ZooKeeperTraffic earlier) {
        return new ZooKeeperTraffic(
                packetsReceived - earlier.packetsReceived,
                packetsSent - earlier.packetsSent,
                bytesReceived - earlier.bytesReceived,
                responseBytes - earlier.responseBytes,
                watchBytes - earlier.watchBytes);
    }

    /** This delta less {@code idle}'s, scaled from {@code idleSeconds} to {@code seconds}. */
    ZooKeeperTraffic lessBackground(ZooKeeperTraffic idle, double idleSeconds, double seconds) {
        double f = seconds / idleSeconds;
        return new ZooKeeperTraffic(
                packetsReceived - Math.round(idle.packetsReceived * f),
                packetsSent - Math.round(idle.packetsSent * f),
                bytesReceived - Math.round(idle.bytesReceived * f),
                responseBytes - Math.round(idle.responseBytes * f),
                watchBytes - Math.round(idle.watchBytes * f));
    }

    /** A markdown table row: the counters divided by {@code per}. */
    String row(String label, double per) {
        return String.format(
                "| %s | %.1f | %.1f | %.0f | %.0f | %.0f |",
                label,
                packetsReceived / per,
                packetsSent / per,
                bytesReceived / per,
                responseBytes / per,
                watchBytes / per);
    }
}
