package io.shardgate.router.move;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The moves of a cluster in ZooKeeper, next to its configuration:
 *
 * <pre>
 * {root}/moves/m-0000000001                 persistent: JSON of a {@link MoveRecord}
 * {root}/moves/m-0000000001/held/{router}   ephemeral: that router holds the move's statements for
 *                                           the hold generation in its data, and every statement
 *                                           it dispatched before the hold has ended
 * </pre>
 *
 * <p>Records are updated with compare-and-set on the node's version, so two routers acting on one
 * move (a resumed move after a router's death) cannot overwrite each other's progress unseen. All
 * calls block; use them off the event loops.
 */
public final class MoveLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CuratorFramework client;
    private final String base;

    public MoveLog(CuratorFramework client, String root) {
        this.client = client;
        this.base = root + "/moves";
    }

    /** The path the routers watch. */
    String base() {
        return base;
    }

    CuratorFramework client() {
        return client;
    }

    /** A record and the version of its node (for {@link #update}). */
    public record Stored(MoveRecord record, int version) {}

    /** Creates a move with the next id; returns it as stored. */
    public Stored create(MoveRecord draft) throws Exception {
        String path = client.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(base + "/m-", new byte[0]);
        String id = path.substring(path.lastIndexOf('/') + 1);
        MoveRecord record = new MoveRecord(
                id,
                draft.schema(),
                draft.tables(),
                draft.sources(),
                draft.target(),
                draft.what(),
                draft.copyRowsPerSecond(),
                draft.state(),
                draft.holdGeneration(),
                draft.error(),
                draft.createdAtMillis(),
                draft.updatedAtMillis(),
                draft.progress(),
                draft.checkpoints(),
                draft.rulesVersion());
        Stat stat = client.setData().withVersion(0).forPath(path, encode(record));
        return new Stored(record, stat.getVersion());
    }

    /** The move {@code id}, or null. */
    public Stored get(String id) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = client.getData().storingStatIn(stat).forPath(base + "/" + id);
            return data.length == 0 ? null : new Stored(decode(data), stat.getVersion());
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
    }

    /** Every move, oldest first (half-created ones left out). */
    public List<Stored> list() throws Exception {
        List<Stored> out = new ArrayList<>();
        if (client.checkExists().forPath(base) == null) {
            return out;
        }
        List<String> ids = new ArrayList<>(client.getChildren().forPath(base));
        ids.sort(null);
        for (String id : ids) {
            Stored s = get(id);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Replaces the record stored at {@code version}.
     *
     * @throws KeeperException.BadVersionException when another writer updated it first
     */
    public Stored update(MoveRecord record, int version) throws Exception {
        Stat stat = client.setData().withVersion(version).forPath(base + "/" + record.id(), encode(record));
        return new Stored(record, stat.getVersion());
    }

    /** This router holds {@code id}'s statements for {@code generation} (an ephemeral node). */
    public void acknowledge(String id, String router, int generation) throws Exception {
        String path = base + "/" + id + "/held/" + router;
        byte[] data = Integer.toString(generation).getBytes(StandardCharsets.US_ASCII);
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path, data);
        } catch (KeeperException.NodeExistsException e) {
            client.setData().forPath(path, data);
        }
    }

    /** The routers that acknowledged hold {@code generation} of {@code id}. */
    public List<String> acknowledged(String id, int generation) throws Exception {
        String held = base + "/" + id + "/held";
        List<String> out = new ArrayList<>();
        if (client.checkExists().forPath(held) == null) {
            return out;
        }
        for (String router : client.getChildren().forPath(held)) {
            try {
                byte[] data = client.getData().forPath(held + "/" + router);
                if (new String(data, StandardCharsets.US_ASCII).equals(Integer.toString(generation))) {
                    out.add(router);
                }
            } catch (KeeperException.NoNodeException gone) {
                // the router went away meanwhile
            }
        }
        return out;
    }

    static byte[] encode(MoveRecord record) {
        try {
            return JSON.writeValueAsBytes(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static MoveRecord decode(byte[] data) {
        try {
            return JSON.readValue(data, MoveRecord.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
