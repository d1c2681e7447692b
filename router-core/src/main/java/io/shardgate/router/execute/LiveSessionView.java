package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.router.routing.SessionView;
import io.shardgate.router.session.PinReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A client session as {@link io.shardgate.router.routing.StatementRouter} reads it: each answer
 * comes from the session's state at the moment it is asked, so one instance serves the session's
 * life with nothing copied per statement. Event-loop confined, like the session.
 */
final class LiveSessionView implements SessionView {
    private final SessionPort session;

    LiveSessionView(SessionPort session) {
        this.session = session;
    }

    @Override
    public String schema() {
        return session.desired().schema();
    }

    @Override
    public boolean holdsConnection(int hostgroup) {
        BackendLease lease = session.leases().find(hostgroup);
        return lease != null && lease.current() != null;
    }

    @Override
    public boolean transactionOnlyDeclared() {
        return session.transaction().onlyDeclared();
    }

    @Override
    public List<Integer> transactionHostgroups() {
        List<BackendLease> open = session.leases().inTransaction(null);
        List<Integer> hostgroups = new ArrayList<>(open.size());
        for (BackendLease lease : open) {
            hostgroups.add(lease.hostgroup().id());
        }
        return hostgroups;
    }

    @Override
    public Set<PinReason> pins() {
        return session.leases().pins();
    }

    @Override
    public long lastInsertId() {
        return session.lastInsertId().value();
    }

    @Override
    public Map<String, String> variables() {
        return session.desired().fragments();
    }

    @Override
    public long previousRowCount() {
        return session.previous().rowCount();
    }

    @Override
    public long previousFoundRows() {
        return session.previous().foundRows();
    }
}
