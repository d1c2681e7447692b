package io.shardgate.router.routing;

import java.util.List;

/**
 * The control view of every backend server of a running router: what the admin interface lists
 * and the one thing it changes at run time, a server's status.
 */
public final class BackendServers {
    private final Hostgroups hostgroups;

    public BackendServers(Hostgroups hostgroups) {
        this.hostgroups = hostgroups;
    }

    /** Every server (role, status, health, pool counters), in hostgroup order. */
    public List<ServerInfo> list() {
        return hostgroups.servers().stream().map(BackendServer::info).toList();
    }

    /** One server's snapshot. */
    public ServerInfo get(int hostgroup, String address) {
        return server(hostgroup, address).info();
    }

    /**
     * Sets the status of the server {@code address} ({@code host:port}) of {@code hostgroup}:
     * OFFLINE_SOFT drains it, OFFLINE_HARD closes its connections, ONLINE puts it back. The monitor
     * moves servers only between ONLINE and SHUNNED, never out of an OFFLINE status.
     *
     * @throws IllegalArgumentException when there is no such server
     */
    public void setStatus(int hostgroup, String address, ServerStatus status) {
        server(hostgroup, address).status(status, "set by the admin interface");
    }

    private BackendServer server(int id, String address) {
        Hostgroup hostgroup = hostgroups.get(id);
        BackendServer server = hostgroup == null ? null : hostgroup.server(address);
        if (server == null) {
            throw new IllegalArgumentException("no server " + address + " in hostgroup " + id);
        }
        return server;
    }
}
