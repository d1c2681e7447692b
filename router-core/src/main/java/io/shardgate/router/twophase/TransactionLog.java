package io.shardgate.router.twophase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The decision log of two-phase commit, in ZooKeeper next to the cluster's configuration:
 *
 * <pre>
 * {root}/transactions/epochs/e-0000000042   persistent sequential: one per router start (the xid epoch)
 * {root}/transactions/owners/42             ephemeral: router epoch 42 is alive
 * {root}/transactions/decisions/sg.1.42.7   persistent: {"outcome":"commit","hostgroups":[10,20]}
 * </pre>
 *
 * <p>Why ZooKeeper: it is already the cluster's control plane, replicated and durable on a quorum,
 * and every router reads it; a decision table on a shard (Vitess's way) would make that shard's
 * availability a condition of every commit and of every recovery. The price is one ZooKeeper write
 * per multi-shard commit (plus its deletion, off the client's path).
 *
 * <p>A decision is written by creating its node, never by updating it: the owner's commit and a
 * resolver's rollback (of a transaction it found prepared with no decision and no live owner)
 * create the same node, so exactly one of them wins and the loser follows the winner. A commit
 * decision is deleted once every branch committed; a rollback decision stays {@link
 * #ROLLBACK_RETENTION_MILLIS} after its branches are gone, so an owner that lost its ZooKeeper
 * session mid-commit cannot log a commit for a transaction a resolver already rolled back.
 *
 * <p>Threading: {@link #logDecision} and {@link #forget} are asynchronous (Curator's event thread
 * calls back); everything else blocks and runs on the resolver's thread.
 */
public final class TransactionLog implements AutoCloseable {
    /** Rollback decisions stay this long after their branches are gone (see above). */
    public static final long ROLLBACK_RETENTION_MILLIS = TimeUnit.HOURS.toMillis(1);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final CuratorFramework client;
    private final String base;
    private volatile long epoch = -1;
    private PersistentNode owner;

    public TransactionLog(CuratorFramework client, String root) {
        this.client = client;
        this.base = root + "/transactions";
    }

    /** A decision as logged: its outcome, the hostgroups of the transaction, when it was logged. */
    public record Decision(Outcome outcome, List<Integer> hostgroups, long loggedAtMillis) {}

    /** What became of a {@link #logDecision}: written, or another outcome was there first, or an error. */
    public record Logged(Outcome outcome, Exception failure) {
        public boolean failed() {
            return failure != null;
        }
    }

    /**
     * Takes this process's epoch and registers it as alive (blocks up to {@code timeoutMillis}).
     *
     * @return the epoch
     */
    public synchronized long start(long timeoutMillis) throws Exception {
        if (epoch >= 0) {
            return epoch;
        }
        if (!client.blockUntilConnected((int) timeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("ZooKeeper did not answer within " + timeoutMillis + " ms");
        }
        String created = client.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(base + "/epochs/e-");
        long taken = Long.parseLong(created.substring(created.lastIndexOf("e-") + 2));
        client.createContainers(base + "/owners");
        PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, ownerPath(taken), new byte[0]);
        node.start();
        if (!node.waitForInitialCreate(timeoutMillis, TimeUnit.MILLISECONDS)) {
            node.close();
            throw new IllegalStateException("the owner node of epoch " + taken + " was not created in time");
        }
        owner = node;
        epoch = taken;
        return taken;
    }

    /** This process's epoch, or -1 until {@link #start} succeeded. */
    public long epoch() {
        return epoch;
    }

    /** Whether the router of {@code epoch} is alive (its ephemeral node exists). */
    public boolean ownerAlive(long ownerEpoch) throws Exception {
        return client.checkExists().forPath(ownerPath(ownerEpoch)) != null;
    }

    /**
     * Logs {@code outcome} for {@code xid} by creating its node; {@code then} hears (on Curator's
     * thread) the outcome now logged — {@code outcome} itself, or the other one if it was there
     * first — or the failure (ZooKeeper unreachable: nothing is known to be logged).
     */
    public void logDecision(Xid xid, Outcome outcome, List<Integer> hostgroups, Consumer<Logged> then) {
        byte[] data = encode(outcome, hostgroups);
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .inBackground((c, event) -> created(xid, outcome, event, then))
                    .forPath(decisionPath(xid), data);
        } catch (Exception e) {
            then.accept(new Logged(null, e));
        }
    }

    private void created(Xid xid, Outcome outcome, CuratorEvent event, Consumer<Logged> then) {
        int code = event.getResultCode();
        if (code == KeeperException.Code.OK.intValue()) {
            then.accept(new Logged(outcome, null));
        } else if (code == KeeperException.Code.NODEEXISTS.intValue()) {
            try {
                Decision there = read(xid);
                then.accept(
                        there == null
                                ? new Logged(null, new IllegalStateException("decision of " + xid + " vanished"))
                                : new Logged(there.outcome(), null));
            } catch (Exception e) {
                then.accept(new Logged(null, e));
            }
        } else {
            then.accept(new Logged(null, KeeperException.create(KeeperException.Code.get(code), event.getPath())));
        }
    }

    /** Logs {@code outcome} and waits for it (the resolver's form); returns the outcome now logged. */
    public Outcome logDecisionAndWait(Xid xid, Outcome outcome, List<Integer> hostgroups) throws Exception {
        try {
            client.create().creatingParentContainersIfNeeded().forPath(decisionPath(xid), encode(outcome, hostgroups));
            return outcome;
        } catch (KeeperException.NodeExistsException e) {
            Decision there = read(xid);
            if (there == null) {
                throw new IllegalStateException("decision of " + xid + " vanished", e);
            }
            return there.outcome();
        }
    }

    /** The decision logged for {@code xid}, or null. */
    public Decision read(Xid xid) throws Exception {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = client.getData().storingStatIn(stat).forPath(decisionPath(xid));
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
        return decode(data, stat.getCtime());
    }

    /** Every transaction with a logged decision. */
    public List<Xid> decided() throws Exception {
        List<String> names;
        try {
            names = client.getChildren().forPath(base + "/decisions");
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        List<Xid> out = new ArrayList<>(names.size());
        for (String name : names) {
            Xid xid = Xid.parse(name);
            if (xid != null) {
                out.add(xid);
            }
        }
        return out;
    }

    /** Deletes the decision of {@code xid} in the background (every branch is resolved). */
    public void forget(Xid xid) {
        try {
            client.delete().guaranteed().inBackground().forPath(decisionPath(xid));
        } catch (Exception e) {
            // the resolver deletes decisions whose branches are all gone
        }
    }

    /** Deletes the decision of {@code xid} and waits. */
    public void forgetAndWait(Xid xid) throws Exception {
        try {
            client.delete().forPath(decisionPath(xid));
        } catch (KeeperException.NoNodeException e) {
            // another resolver was first
        }
    }

    @Override
    public synchronized void close() {
        if (owner != null) {
            try {
                owner.close();
            } catch (IOException | RuntimeException e) {
                // the session is gone already, and the ephemeral node with it
            }
            owner = null;
        }
    }

    private String ownerPath(long ownerEpoch) {
        return base + "/owners/" + ownerEpoch;
    }

    private String decisionPath(Xid xid) {
        return base + "/decisions/" + xid.gtrid();
    }

    static byte[] encode(Outcome outcome, List<Integer> hostgroups) {
        ObjectNode node = JSON.createObjectNode();
        node.put("outcome", outcome.text());
        hostgroups.forEach(node.putArray("hostgroups")::add);
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    static Decision decode(byte[] data, long loggedAt) throws IOException {
        JsonNode node = JSON.readTree(data);
        Outcome outcome = Outcome.named(node.path("outcome").asText(""));
        if (outcome == null) {
            throw new IOException("not a decision: " + new String(data, java.nio.charset.StandardCharsets.UTF_8));
        }
        List<Integer> hostgroups = new ArrayList<>();
        node.path("hostgroups").forEach(h -> hostgroups.add(h.asInt()));
        return new Decision(outcome, List.copyOf(hostgroups), loggedAt);
    }
}
