package io.shardgate.router.adminsql;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.shardgate.admin.http.CacheControl;
import io.shardgate.admin.http.MoveControl;
import io.shardgate.admin.store.RuleStore;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.router.control.LiveConfiguration;
import io.shardgate.router.frontend.FrontendHandshakeHandler;
import io.shardgate.router.frontend.FrontendServices;
import io.shardgate.router.frontend.SessionInfo;
import io.shardgate.router.metrics.QueryDigestStats;
import io.shardgate.router.routing.Hostgroups;
import io.shardgate.router.twophase.Resolver;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL admin endpoint (default port 6032, loopback): MySQL clients log in with the {@code
 * admin} accounts (the same handshake and auth code as the MySQL port, {@link
 * FrontendHandshakeHandler}) and edit the cluster configuration with SQL ({@link AdminCatalog}).
 */
public final class AdminEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminEndpoint.class);

    private final Channel listener;
    private final ExecutorService executor;

    private AdminEndpoint(Channel listener, ExecutorService executor) {
        this.listener = listener;
        this.executor = executor;
    }

    /**
     * Listens on {@code address}.
     *
     * @param services the MySQL port's services with the admin accounts as users
     * @param store the cluster's configuration as this router sees it
     * @param publisher where {@code LOAD ... TO RUNTIME} publishes
     */
    public static AdminEndpoint start(
            InetSocketAddress address,
            EventLoopGroup acceptor,
            EventLoopGroup workers,
            Class<? extends ServerChannel> channelType,
            FrontendServices services,
            RuleStore store,
            RuleStore publisher,
            LiveConfiguration live,
            Hostgroups hostgroups,
            IntSupplier clientConnections,
            Supplier<List<SessionInfo>> sessions,
            QueryDigestStats digests,
            CacheControl cache,
            Resolver resolver,
            MoveControl moves,
            IntSupplier heldStatements) {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "shardgate-admin-sql");
            t.setDaemon(true);
            return t;
        });
        AdminCatalog catalog = new AdminCatalog(
                store,
                publisher,
                live,
                new RouterTables(
                        hostgroups,
                        clientConnections,
                        sessions,
                        digests,
                        cache,
                        new InDoubtTable(resolver),
                        new MovesTable(moves, heldStatements)),
                new AdminVariables(services.serverVersion()));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, workers)
                .channel(channelType)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        "frames",
                                        new PacketFrameDecoder(
                                                services.settings().maxAllowedPacket()))
                                .addLast(
                                        "handshake",
                                        new FrontendHandshakeHandler(
                                                services,
                                                (user, capabilities, schema, okSequenceId) -> new AdminSession(
                                                        catalog, executor, user.name(), capabilities, okSequenceId)));
                    }
                });
        try {
            Channel listener = bootstrap.bind(address).syncUninterruptibly().channel();
            log.info("SQL admin endpoint on {}", listener.localAddress());
            return new AdminEndpoint(listener, executor);
        } catch (RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        executor.shutdown();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
