package io.shardgate.router.health;

import io.shardgate.admin.http.ReadinessCheck;
import io.shardgate.router.routing.BackendServer;
import io.shardgate.router.routing.Hostgroup;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.router.routing.ServerInfo;
import io.shardgate.sharding.rule.SchemaRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code server.ready_requires_online_backends}: the router is not ready while some logical
 * schema's default hostgroup has no ONLINE server (all SHUNNED by the monitor, or set OFFLINE by an
 * operator), since every statement on that schema's unlisted tables, its DDL and its transactions'
 * first statements would fail there; a load balancer polling {@code /ready} then sends clients to
 * routers that can serve them. Reads the rules and server statuses as they are at each request.
 */
public final class DefaultHostgroupReadiness implements ReadinessCheck {
    private final RoutingRules routing;
    private final Hostgroups hostgroups;

    public DefaultHostgroupReadiness(RoutingRules routing, Hostgroups hostgroups) {
        this.routing = routing;
        this.hostgroups = hostgroups;
    }

    @Override
    public Optional<String> notReadyBecause() {
        List<String> problems = new ArrayList<>();
        // sorted by schema name, so the answer is the same at every poll
        for (SchemaRule schema : new TreeMap<>(routing.current().schemas()).values()) {
            Hostgroup hostgroup = hostgroups.get(schema.defaultHostgroup());
            if (hostgroup == null) {
                problems.add("schema '" + schema.name() + "': its default hostgroup " + schema.defaultHostgroup()
                        + " is not configured");
            } else if (hostgroup.servers().stream().noneMatch(BackendServer::online)) {
                problems.add("schema '" + schema.name() + "': no server of its default hostgroup " + hostgroup.id()
                        + " is ONLINE (" + describe(hostgroup) + ")");
            }
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    private static String describe(Hostgroup hostgroup) {
        List<String> servers = new ArrayList<>();
        for (BackendServer server : hostgroup.servers()) {
            ServerInfo info = server.info();
            servers.add(
                    info.address() + " " + info.status() + (info.lastError() != null ? ": " + info.lastError() : ""));
        }
        return String.join(", ", servers);
    }
}
