package io.shardgate.router.server;

/** A router's name among the cluster's live routers (ZooKeeper registration, move leadership). */
public final class RouterId {
    private RouterId() {}

    /** Unique among live routers: the host name (or bind address) and the MySQL port. */
    public static String of(String bind, int port) {
        String host = bind;
        if (host.equals("0.0.0.0") || host.equals("::")) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                host = "router";
            }
        }
        return host.replaceAll("[^A-Za-z0-9._-]", "_") + ":" + port;
    }
}
