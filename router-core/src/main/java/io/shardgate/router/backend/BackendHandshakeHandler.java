package io.shardgate.router.backend;

import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_CONNECT_WITH_DB;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PLUGIN_AUTH;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PROTOCOL_41;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_SECURE_CONNECTION;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.Promise;
import io.shardgate.protocol.auth.AuthPlugin;
import io.shardgate.protocol.auth.AuthPlugins;
import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.packet.AuthSwitchRequest;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.net.PacketWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The client side of the MySQL connection phase, run by the router against a backend: reads
 * HandshakeV10, answers with HandshakeResponse41, follows auth switches and caching_sha2_password's
 * extra round trips (fast auth, or full auth by RSA public key), and completes the promise with
 * the authenticated {@link BackendConnection} on the server's OK.
 *
 * <p>Runs on the backend channel's event loop; removes itself (and the frame decoder before it)
 * once authenticated so the relay sees raw bytes.
 */
final class BackendHandshakeHandler extends ChannelInboundHandlerAdapter {
    private static final int REQUIRED = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH;

    private final BackendLogin login;
    private final String label;
    private final Promise<BackendConnection> promise;
    private HandshakeV10 handshake;
    private int capabilities;
    private int mariaDbCapabilities;
    private AuthPlugin plugin;
    private byte[] seed;
    private boolean awaitingPublicKey;

    BackendHandshakeHandler(BackendLogin login, String label, Promise<BackendConnection> promise) {
        this.login = login;
        this.label = label;
        this.promise = promise;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Packet packet = (Packet) msg;
        try {
            if (handshake == null) {
                onHandshake(ctx, packet);
            } else {
                onAuthReply(ctx, packet);
            }
        } catch (RuntimeException e) {
            fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "bad handshake from backend " + label + ": " + e.getMessage());
        } finally {
            packet.release();
        }
    }

    private void onHandshake(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf payload = packet.payload();
        if (payload.isReadable() && payload.getUnsignedByte(payload.readerIndex()) == 0xFF) {
            // e.g. "Host is blocked" or "Too many connections" before any handshake
            fail(ctx, ErrPacket.read(payload));
            return;
        }
        handshake = HandshakeV10.read(payload);
        int serverCaps = handshake.capabilities().flags();
        if ((serverCaps & REQUIRED) != REQUIRED) {
            fail(ctx, ErrorCode.ER_NOT_SUPPORTED_YET, "backend " + label + " lacks protocol 4.1 secure authentication");
            return;
        }
        capabilities = login.capabilities() & serverCaps;
        if ((serverCaps & CapabilityFlags.CLIENT_LONG_PASSWORD) == 0) {
            // MariaDB: no CLIENT_MYSQL bit, extended capabilities in the handshake's reserved bytes
            mariaDbCapabilities =
                    login.mariaDbCapabilities() & handshake.capabilities().mariaDbFlags();
        }
        if (login.schema() == null) {
            capabilities &= ~CLIENT_CONNECT_WITH_DB;
        }
        seed = handshake.authPluginData();
        plugin = AuthPlugins.forName(handshake.authPluginName())
                .orElse(AuthPlugins.forName("mysql_native_password").orElseThrow());
        byte[] auth = plugin.initialResponse(login.password(), seed);
        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("_client_name", "shardgate");
        attrs.put("program_name", "shardgate");
        HandshakeResponse41 response = new HandshakeResponse41(
                new Capabilities(capabilities, mariaDbCapabilities),
                1 << 30,
                login.characterSet(),
                login.user(),
                auth,
                login.schema(),
                plugin.name(),
                attrs);
        send(ctx, packet.lastSequenceId() + 1, out -> response.write(out));
    }

    private void onAuthReply(ChannelHandlerContext ctx, Packet packet) {
        ByteBuf payload = packet.payload();
        int next = packet.lastSequenceId() + 1;
        int header = payload.isReadable() ? payload.getUnsignedByte(payload.readerIndex()) : -1;
        switch (header) {
            case 0x00 -> succeed(ctx, OkPacket.read(payload, new Capabilities(capabilities)));
            case 0xFF -> fail(ctx, ErrPacket.read(payload));
            case 0xFE -> {
                AuthSwitchRequest sw = AuthSwitchRequest.read(payload);
                AuthPlugin switched = AuthPlugins.forName(sw.pluginName()).orElse(null);
                if (switched == null) {
                    fail(
                            ctx,
                            ErrorCode.ER_NOT_SUPPORTED_YET,
                            "backend " + label + " asks for auth plugin '" + sw.pluginName()
                                    + "', which Shardgate does not speak");
                    return;
                }
                plugin = switched;
                seed = sw.scramble();
                byte[] auth = plugin.initialResponse(login.password(), seed);
                send(ctx, next, out -> out.writeBytes(auth));
            }
            case 0x01 -> onMoreData(ctx, payload, next);
            default ->
                fail(
                        ctx,
                        ErrorCode.ER_HANDSHAKE_ERROR,
                        "unexpected packet 0x" + Integer.toHexString(header) + " from backend " + label
                                + " during authentication");
        }
    }

    /** caching_sha2_password: fast-auth result, full-auth request, or the public key we asked for. */
    private void onMoreData(ChannelHandlerContext ctx, ByteBuf payload, int next) {
        byte[] data = new byte[payload.readableBytes() - 1];
        payload.getBytes(payload.readerIndex() + 1, data);
        if (awaitingPublicKey) {
            awaitingPublicKey = false;
            byte[] encrypted = CachingSha2Password.encryptPassword(
                    login.password(),
                    seed,
                    CachingSha2Password.parsePublicKey(new String(data, StandardCharsets.US_ASCII)));
            send(ctx, next, out -> out.writeBytes(encrypted));
        } else if (data.length == 1 && data[0] == CachingSha2Password.FAST_AUTH_SUCCESS) {
            // the OK packet follows
        } else if (data.length == 1 && data[0] == CachingSha2Password.PERFORM_FULL_AUTHENTICATION) {
            // no TLS to backends yet (issue #8): ask for the server's RSA key rather than send plaintext
            awaitingPublicKey = true;
            send(ctx, next, out -> out.writeByte(CachingSha2Password.REQUEST_PUBLIC_KEY));
        } else {
            fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "unexpected auth data from backend " + label);
        }
    }

    private void succeed(ChannelHandlerContext ctx, OkPacket ok) {
        ctx.pipeline().remove(this);
        BackendConnection connection = new BackendConnection(
                ctx.channel(), handshake, new Capabilities(capabilities, mariaDbCapabilities), ok.statusFlags(), label);
        if (!promise.trySuccess(connection)) {
            ctx.close();
        }
    }

    private void send(ChannelHandlerContext ctx, int sequenceId, java.util.function.Consumer<ByteBuf> payload) {
        ctx.writeAndFlush(PacketWriter.frame(ctx.alloc(), sequenceId, 128, payload));
    }

    private void fail(ChannelHandlerContext ctx, ErrorCode code, String message) {
        fail(ctx, new ErrPacket(code.code(), code.sqlState(), message));
    }

    private void fail(ChannelHandlerContext ctx, ErrPacket error) {
        promise.tryFailure(new BackendException(error));
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "backend " + label + " closed the connection during login");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, ErrorCode.ER_HANDSHAKE_ERROR, "backend " + label + ": " + cause.getMessage());
    }
}
