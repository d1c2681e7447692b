package io.shardgate.router.frontend;

import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_DEPRECATE_EOF;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.frame.PacketFrameEncoder;
import io.shardgate.protocol.frame.PacketTooLargeException;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComChangeUser;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.backend.BackendConnection;
import io.shardgate.router.backend.BackendRelayHandler;
import io.shardgate.router.backend.RelayTarget;
import io.shardgate.router.config.UserConfig;
import io.shardgate.router.net.PacketWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client connection in the command phase, relaying to its own backend connection.
 *
 * <p>Design note. Commands are forwarded to the backend as they come and the backend's responses
 * are relayed back as raw bytes ({@link BackendRelayHandler}); this class decides per command
 * what response to expect, answers the few commands the router owns (COM_PING, COM_QUIT,
 * COM_CHANGE_USER, unknown commands), and keeps order: a command the router answers itself waits
 * until every relayed response before it has been written. Commands that arrive while a response
 * is outstanding wait in a queue and the client's reads pause, so a pipelining client cannot make
 * the router buffer without bound.
 *
 * <p>Threading: the client and backend channels share one event loop; everything here runs on it.
 * Ownership: a {@link Packet} read from the client is either written to the backend (which
 * releases it) or released here.
 */
final class FrontendSession extends ChannelInboundHandlerAdapter implements RelayTarget {
    private static final Logger log = LoggerFactory.getLogger(FrontendSession.class);

    private final FrontendServices services;
    private final Capabilities capabilities;
    private final BackendConnection backend;
    private final BackendRelayHandler relay;
    private final byte[] seed;
    private final int connectionId;
    private final ArrayDeque<Packet> waiting = new ArrayDeque<>();
    private UserConfig user;
    private ChannelHandlerContext ctx;
    /** Responses the backend still owes the client. */
    private int inFlight;
    /** A LOCAL INFILE upload is running: client packets are file data until an empty one. */
    private boolean uploading;
    /** A COM_CHANGE_USER exchange or its backend reset is running. */
    private ChangeUser changeUser;

    private boolean closed;

    FrontendSession(
            FrontendServices services,
            UserConfig user,
            Capabilities capabilities,
            BackendConnection backend,
            byte[] seed,
            int connectionId) {
        this.services = services;
        this.user = user;
        this.capabilities = capabilities;
        this.backend = backend;
        this.seed = seed;
        this.connectionId = connectionId;
        this.relay = new BackendRelayHandler(this, capabilities.has(CLIENT_DEPRECATE_EOF), backend.label());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        backend.channel().pipeline().addFirst("encoder", new PacketFrameEncoder());
        backend.attach(relay);
    }

    @Override
    public Channel client() {
        return ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        if (closed) {
            packet.release();
        } else if (uploading) {
            // LOCAL INFILE data keeps the client's sequence ids; an empty packet ends the file
            uploading = packet.payload().isReadable();
            backend.channel().writeAndFlush(packet, backend.channel().voidPromise());
        } else if (changeUser != null && changeUser.expectsClientPacket()) {
            changeUser.onClientPacket(packet);
        } else if (inFlight > 0 || changeUser != null || !waiting.isEmpty()) {
            waiting.add(packet);
            ctx.channel().config().setAutoRead(false);
        } else {
            dispatch(packet);
        }
    }

    /** Routes one command; takes ownership of {@code packet}. */
    private void dispatch(Packet packet) {
        ByteBuf payload = packet.payload();
        Command command = payload.isReadable() ? Command.of(payload.getUnsignedByte(payload.readerIndex())) : null;
        if (command == null) {
            int code = payload.isReadable() ? payload.getUnsignedByte(payload.readerIndex()) : -1;
            packet.release();
            log.debug("connection {}: unknown command {}", connectionId, code);
            reply(1, ErrPacket.of(ErrorCode.ER_UNKNOWN_COM_ERROR));
            return;
        }
        switch (command) {
            case COM_QUERY, COM_STMT_EXECUTE -> forward(packet, Response.RESULT_SET);
            case COM_STMT_PREPARE -> forward(packet, Response.PREPARE);
            case COM_STMT_FETCH -> forward(packet, Response.ROWS);
            case COM_FIELD_LIST -> forward(packet, Response.FIELD_LIST);
            case COM_STATISTICS -> forward(packet, Response.STATISTICS);
            case COM_INIT_DB, COM_STMT_RESET, COM_RESET_CONNECTION, COM_SET_OPTION, COM_DEBUG, COM_REFRESH ->
                forward(packet, Response.SINGLE);
            case COM_PROCESS_INFO -> forward(packet, Response.RESULT_SET);
            case COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA -> forward(packet, null); // no response
            case COM_PING -> {
                packet.release();
                reply(1, OkPacket.of(0, 0, relayStatus(), 0));
            }
            case COM_QUIT -> {
                packet.release();
                close();
            }
            case COM_CHANGE_USER -> startChangeUser(packet);
            default -> {
                packet.release();
                // replication, shutdown, kill by backend id...: a router cannot pass these on safely
                reply(1, Errors.notSupported(command.name() + " through the router"));
            }
        }
    }

    private void forward(Packet packet, Response response) {
        if (response != null) {
            relay.expect(response);
            inFlight++;
        }
        backend.channel().writeAndFlush(packet, backend.channel().voidPromise());
    }

    private int relayStatus() {
        return relay.statusFlags();
    }

    @Override
    public void responsesComplete(int count, int statusFlags, boolean lastWasError) {
        inFlight -= count;
        drain();
    }

    /** Runs queued commands until one is in flight again; resumes reading when the queue is empty. */
    private void drain() {
        while (inFlight == 0 && changeUser == null && !closed && !waiting.isEmpty()) {
            dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && !closed) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void localInfileRequested() {
        uploading = true;
    }

    @Override
    public void internalResponse(ByteBuf response, boolean error) {
        if (changeUser != null) {
            changeUser.onBackendResponse(response, error);
        }
    }

    @Override
    public void backendLost(String reason, boolean midPacket, int nextSequenceId) {
        if (closed) {
            return;
        }
        log.warn("connection {}: {}", connectionId, reason);
        if (inFlight > 0 && !midPacket) {
            ErrPacket lost = new ErrPacket(2013, "08S01", "Lost connection to backend during query: " + reason);
            ctx.writeAndFlush(frame(nextSequenceId, lost::write)).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
        closed = true;
        releaseWaiting();
    }

    private void startChangeUser(Packet packet) {
        ComChangeUser request;
        try {
            request = ComChangeUser.read(packet.payload(), capabilities);
        } catch (RuntimeException e) {
            reply(1, ErrPacket.of(ErrorCode.ER_MALFORMED_PACKET));
            return;
        } finally {
            packet.release();
        }
        changeUser = new ChangeUser(request);
        changeUser.start();
    }

    /**
     * COM_CHANGE_USER: authenticate the new user against the handshake's scramble, then reset
     * the backend session (COM_RESET_CONNECTION, schema, character set) before the final OK.
     */
    private final class ChangeUser {
        private final ComChangeUser request;
        private final ClientAuthentication auth;
        private int sequenceId;
        private boolean awaitingClient;
        private final ArrayDeque<Consumer<ByteBuf>> resetCommands = new ArrayDeque<>();

        ChangeUser(ComChangeUser request) {
            this.request = request;
            this.auth = new ClientAuthentication(
                    services.users(),
                    services.rsaKeys(),
                    services.rsaPublicKeyPem(),
                    ctx.pipeline().get("tls") != null,
                    "client");
        }

        boolean expectsClientPacket() {
            return awaitingClient;
        }

        void start() {
            onStep(auth.start(request.user(), request.authPluginName(), request.authResponse(), seed));
        }

        void onClientPacket(Packet packet) {
            awaitingClient = false;
            sequenceId = packet.lastSequenceId();
            byte[] bytes = new byte[packet.payload().readableBytes()];
            packet.payload().readBytes(bytes);
            packet.release();
            onStep(auth.next(bytes));
        }

        private void onStep(ClientAuthentication.Step step) {
            if (step instanceof ClientAuthentication.Send send) {
                awaitingClient = true;
                ctx.writeAndFlush(frame(++sequenceId, out -> out.writeBytes(send.payload())), ctx.voidPromise());
            } else if (step instanceof ClientAuthentication.Denied denied) {
                closeWith(frame(++sequenceId, denied.error()::write));
            } else if (step instanceof ClientAuthentication.Success success) {
                if (success.fastAuthMarker()) {
                    ctx.write(frame(++sequenceId, out -> out.writeByte(0x01).writeByte(0x03)), ctx.voidPromise());
                }
                user = success.user();
                resetCommands.add(out -> out.writeByte(Command.COM_RESET_CONNECTION.code()));
                String schema = request.schema() != null && !request.schema().isEmpty()
                        ? request.schema()
                        : user.defaultSchema();
                if (schema != null) {
                    resetCommands.add(out -> out.writeByte(Command.COM_INIT_DB.code())
                            .writeCharSequence(schema, StandardCharsets.UTF_8));
                }
                String charset = Collations.charsetOf(request.characterSet());
                if (charset != null) {
                    String collation = Collations.nameOf(request.characterSet());
                    String sql = "SET NAMES " + charset + (collation != null ? " COLLATE " + collation : "");
                    resetCommands.add(out ->
                            out.writeByte(Command.COM_QUERY.code()).writeCharSequence(sql, StandardCharsets.UTF_8));
                }
                nextReset();
            }
        }

        private void nextReset() {
            Consumer<ByteBuf> command = resetCommands.poll();
            if (command == null) {
                changeUser = null;
                reply(++sequenceId, OkPacket.of(0, 0, relayStatus(), 0));
                drain();
                return;
            }
            relay.expectInternal(Response.SINGLE, backend.channel());
            backend.channel().writeAndFlush(PacketWriter.frame(backend.channel().alloc(), 0, 64, command));
        }

        void onBackendResponse(ByteBuf response, boolean error) {
            if (error) {
                // the backend's ERR (e.g. unknown database), renumbered for the client
                ByteBuf copy = response.retainedDuplicate();
                copy.setByte(copy.readerIndex() + 3, ++sequenceId);
                closeWith(copy);
                return;
            }
            nextReset();
        }
    }

    private void reply(int sequenceId, OkPacket ok) {
        ctx.writeAndFlush(frame(sequenceId, out -> ok.write(out, capabilities)), ctx.voidPromise());
    }

    private void reply(int sequenceId, ErrPacket error) {
        ctx.writeAndFlush(frame(sequenceId, error::write), ctx.voidPromise());
    }

    private ByteBuf frame(int sequenceId, Consumer<ByteBuf> payload) {
        return PacketWriter.frame(ctx.alloc(), sequenceId, 64, payload);
    }

    /**
     * Sends {@code lastPacket} (an ERR) and closes the client and the backend connection; the
     * backend must be closed here because {@link #channelInactive} skips a session already closed.
     */
    private void closeWith(ByteBuf lastPacket) {
        changeUser = null;
        closed = true;
        releaseWaiting();
        relay.closeQuietly(backend.channel());
        ctx.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }

    private void close() {
        closed = true;
        releaseWaiting();
        relay.closeQuietly(backend.channel());
        ctx.close();
    }

    private void releaseWaiting() {
        Packet p;
        while ((p = waiting.poll()) != null) {
            p.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // backpressure: stop reading the backend while the client cannot keep up
        backend.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!closed) {
            closed = true;
            releaseWaiting();
            // the backend rolls back any open transaction when its connection closes
            relay.closeQuietly(backend.channel());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PacketTooLargeException) {
            log.info("connection {}: {}", connectionId, cause.getMessage());
            ctx.writeAndFlush(frame(inFlight > 0 ? 0 : 1, ErrPacket.of(ErrorCode.ER_NET_PACKET_TOO_LARGE)::write))
                    .addListener(ChannelFutureListener.CLOSE);
            closed = true;
            releaseWaiting();
            relay.closeQuietly(backend.channel());
        } else {
            log.debug("connection {}: {}", connectionId, cause.toString());
            close();
        }
    }
}
