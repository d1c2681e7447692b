package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import io.shardgate.router.backend.BackendConnector;
import io.shardgate.router.config.HostgroupConfig;
import io.shardgate.router.config.RouterConfig;
import io.shardgate.router.fakebackend.RecordingBackend;
import io.shardgate.router.login.LoginFailures;
import io.shardgate.router.login.UserConnections;
import io.shardgate.router.login.UserDirectory;
import io.shardgate.router.metrics.RouterMetrics;
import io.shardgate.router.move.MoveHolds;
import io.shardgate.router.resultcache.RouterResultCache;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.routing.RoutingRules;
import io.shardgate.router.session.SessionVariables;
import io.shardgate.router.twophase.TwoPhase;
import io.shardgate.sharding.key.SnowflakeIds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A real client session ({@link FrontendSession}, its {@link ClientSession} and the real executors)
 * on {@link RecordingBackend}s, one per hostgroup of a YAML {@link RouterConfig}, wired as {@code
 * Shardgate.start} wires them (no login exchange, no result-cache hits unless the config asks, no
 * schema tracker): a test sends the client's COM_QUERY and asserts the commands each fake shard
 * received and the client's answer ({@link ClientAnswers}). Everything runs on the test's thread with
 * time frozen; {@link #close} fails when a buffer was left unreleased.
 */
public final class FakeShardsSession implements AutoCloseable {
    /** The client's capabilities: those of the fake's connections, classic EOF packets. */
    private static final Capabilities CLIENT = new Capabilities(BackendConnector.BASE_CAPABILITIES
            | CapabilityFlags.CLIENT_MULTI_STATEMENTS
            | CapabilityFlags.CLIENT_MULTI_RESULTS
            | CapabilityFlags.CLIENT_PS_MULTI_RESULTS);

    /** The login's OK follows the handshake, the client's response and (here) nothing else. */
    private static final int LOGIN_OK_SEQUENCE_ID = 2;

    private final Hostgroups hostgroups;
    private final Map<Integer, RecordingBackend> shards = new TreeMap<>();
    private final RecordingBackend first;
    private final EmbeddedChannel client;
    private final FrontendServices services;
    private final String schema;
    /** What the client heard when it logged in. */
    private final List<String> login;

    /**
     * Opens the session on {@code schema} with one idle connection per hostgroup, aligned to it.
     *
     * @param twoPhase the two-phase commit services (a {@code RouterEpochs} started on a real
     *     ZooKeeper for two_phase schemas)
     */
    public FakeShardsSession(String yaml, String schema, TwoPhase twoPhase) {
        this.schema = schema;
        RouterConfig config = RouterConfig.parse(yaml);
        // never dials: every connection a lease borrows is one a RecordingBackend added
        this.hostgroups = new Hostgroups(config.hostgroups(), new BackendConnector(NioSocketChannel.class, 1000));
        RecordingBackend firstShard = null;
        for (HostgroupConfig hostgroup : config.hostgroups()) {
            RecordingBackend shard = firstShard == null
                    ? new RecordingBackend(hostgroups.get(hostgroup.id()), 0, false)
                    : new RecordingBackend(firstShard, hostgroups.get(hostgroup.id()));
            if (firstShard == null) {
                firstShard = shard;
            }
            shards.put(hostgroup.id(), shard);
            shard.connection(SessionVariables.initial(schema));
        }
        this.first = firstShard;
        this.client = first.client();
        RouterMetrics metrics = new RouterMetrics();
        this.services = new FrontendServices(
                config.server(),
                new UserDirectory(config.users()),
                null,
                null,
                null,
                "10.11.0-MariaDB-Shardgate",
                0,
                hostgroups,
                new RoutingRules(rules(config)),
                new AtomicInteger(),
                metrics,
                new SessionRegistry(),
                new SnowflakeIds(7),
                new RouterResultCache(config.cacheConfig(), metrics.registry()),
                new LoginFailures(10, Duration.ofMinutes(1)),
                new UserConnections(),
                null,
                twoPhase,
                new MoveHolds(MoveHolds.HOLD_TIMEOUT_MILLIS));
        FrontendSession session = new FrontendSession(
                services,
                config.users().get(0),
                CLIENT,
                Collations.UTF8MB4_GENERAL_CI,
                schema,
                new byte[20],
                1,
                LOGIN_OK_SEQUENCE_ID,
                client.eventLoop());
        client.pipeline()
                .addLast("frames", new PacketFrameDecoder(config.server().maxAllowedPacket()))
                .addLast("session", session);
        settle();
        this.login = ClientAnswers.describe(first.relayed(), CLIENT, LOGIN_OK_SEQUENCE_ID);
    }

    private static io.shardgate.sharding.rule.RuleSnapshot rules(RouterConfig config) {
        try {
            return config.rules(1);
        } catch (io.shardgate.sharding.rule.InvalidRulesException e) {
            throw new IllegalArgumentException(String.join("; ", e.problems()), e);
        }
    }

    /** The fake server of {@code hostgroup}. */
    public RecordingBackend shard(int hostgroup) {
        return shards.get(hostgroup);
    }

    /** Adds an idle connection, aligned to the session's schema, to {@code hostgroup}'s pool. */
    public RecordingBackend.Connection connection(int hostgroup) {
        return shards.get(hostgroup).connection(SessionVariables.initial(schema));
    }

    public FrontendServices services() {
        return services;
    }

    /** What the client heard when it logged in (the session's OK). */
    public List<String> login() {
        return login;
    }

    /** The client sends {@code sql} as COM_QUERY; nothing is answered until {@link #settle}. */
    public void send(String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        ByteBuf packet = client.alloc().buffer(5 + text.length);
        packet.writeMediumLE(1 + text.length).writeByte(0).writeByte(Command.COM_QUERY.code());
        packet.writeBytes(text);
        client.writeInbound(packet);
    }

    /**
     * The client sends the command whose payload {@code payload} writes (a COM_STMT_PREPARE,
     * _EXECUTE or _CLOSE, say), sequence id 0; nothing is answered until {@link #settle}.
     */
    public void sendCommand(Consumer<ByteBuf> payload) {
        ByteBuf body = client.alloc().buffer();
        try {
            payload.accept(body);
            ByteBuf packet = client.alloc().buffer(4 + body.readableBytes());
            packet.writeMediumLE(body.readableBytes()).writeByte(0).writeBytes(body);
            client.writeInbound(packet);
        } finally {
            body.release();
        }
    }

    /** The client's capabilities (how its binary-protocol commands are written). */
    public Capabilities capabilities() {
        return CLIENT;
    }

    /**
     * The bytes the client heard so far, framed, unread by {@link ClientAnswers} (a
     * COM_STMT_PREPARE_OK, which it does not describe); {@link #answers} then holds no more of them.
     */
    public byte[] relayed() {
        return first.relayed();
    }

    /** The client sends {@code sql}, every shard answers all it is sent; returns what the client heard. */
    public List<String> query(String sql) {
        send(sql);
        settle();
        return answers();
    }

    /** Runs the loops' tasks and has every shard answer, until nothing more is sent. */
    public void settle() {
        int served;
        do {
            served = 0;
            for (RecordingBackend shard : shards.values()) {
                shard.advanceTime(0);
                served += shard.serve();
            }
        } while (served > 0);
        first.advanceTime(0);
    }

    /** Runs the tasks queued on the session's loop (by another thread, say Curator's). */
    public void runPendingTasks() {
        client.runPendingTasks();
    }

    /** The client's answers so far, one line per packet ({@link ClientAnswers}). */
    public List<String> answers() {
        return new ArrayList<>(ClientAnswers.describe(first.relayed(), CLIENT, 1));
    }

    /** True while the router keeps the client's connection open. */
    public boolean open() {
        return client.isActive();
    }

    /** Ends the session (the client leaves), closes the pools, checks every buffer was released. */
    @Override
    public void close() {
        client.close();
        client.runPendingTasks();
        List<RecordingBackend> all = new ArrayList<>(shards.values());
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).close(); // the first, owning the client channel and the allocator, last
        }
        hostgroups.close();
    }
}
