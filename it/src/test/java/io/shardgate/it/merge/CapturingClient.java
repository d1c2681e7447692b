package io.shardgate.it.merge;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.auth.MySqlNativePassword;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;

/**
 * A MySQL client on a plain socket that returns each response as the framed bytes the server sent,
 * which is what the router's merge receives from its backends. Text queries (COM_QUERY) and
 * prepared statements without parameters (COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_CLOSE);
 * CLIENT_DEPRECATE_EOF on request. Written by hand because drivers hide the packets.
 */
final class CapturingClient implements AutoCloseable {
    private static final int TIMEOUT_MILLIS = 30_000;
    private static final int COM_QUERY = 0x03;
    private static final int COM_STMT_PREPARE = 0x16;
    private static final int COM_STMT_EXECUTE = 0x17;
    private static final int COM_STMT_CLOSE = 0x19;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final boolean deprecateEof;
    private final ByteBufAllocator alloc;

    CapturingClient(
            String host,
            int port,
            String user,
            String password,
            String database,
            boolean deprecateEof,
            ByteBufAllocator alloc)
            throws IOException {
        this.deprecateEof = deprecateEof;
        this.alloc = alloc;
        this.socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        HandshakeV10 greeting = HandshakeV10.read(Unpooled.wrappedBuffer(readPayload()));
        int flags = CapabilityFlags.CLIENT_LONG_PASSWORD
                | CapabilityFlags.CLIENT_PROTOCOL_41
                | CapabilityFlags.CLIENT_SECURE_CONNECTION
                | CapabilityFlags.CLIENT_PLUGIN_AUTH
                | CapabilityFlags.CLIENT_TRANSACTIONS
                | CapabilityFlags.CLIENT_CONNECT_WITH_DB
                | (deprecateEof ? CapabilityFlags.CLIENT_DEPRECATE_EOF : 0);
        HandshakeResponse41 login = new HandshakeResponse41(
                new Capabilities(flags),
                1 << 24,
                Collations.UTF8MB4_GENERAL_CI,
                user,
                MySqlNativePassword.scramble(password, greeting.authPluginData()),
                database,
                MySqlNativePassword.NAME,
                Map.of());
        ByteBuf payload = Unpooled.buffer();
        login.write(payload);
        writePacket(1, toBytes(payload));
        byte[] reply = readPayload();
        if (reply.length == 0 || reply[0] != 0) {
            close();
            throw new IOException("login as " + user + " failed: " + new String(reply, UTF_8));
        }
    }

    /** Runs {@code sql} with COM_QUERY; the caller releases the framed response. */
    ByteBuf query(String sql) throws IOException {
        sendCommand(COM_QUERY, sql.getBytes(UTF_8));
        return readResultResponse(false);
    }

    /**
     * Prepares {@code sql} (no parameters), executes it once and closes it; returns the execution's
     * framed response (binary rows), which the caller releases. A failed prepare returns its ERR.
     */
    ByteBuf execute(String sql) throws IOException {
        sendCommand(COM_STMT_PREPARE, sql.getBytes(UTF_8));
        ByteArrayOutputStream prepared = new ByteArrayOutputStream();
        byte[] ok = readFrame(prepared);
        if ((ok[0] & 0xFF) == 0xFF) {
            return wrap(prepared);
        }
        ByteBuf okBuf = Unpooled.wrappedBuffer(ok);
        int statement = okBuf.getIntLE(1);
        int columns = okBuf.getUnsignedShortLE(5);
        int params = okBuf.getUnsignedShortLE(7);
        if (params != 0) {
            throw new IllegalArgumentException("statements with parameters are not supported here: " + sql);
        }
        for (int i = 0; i < columns; i++) {
            readPayload();
        }
        if (columns > 0 && !deprecateEof) {
            readPayload();
        }
        ByteBuf execute = Unpooled.buffer();
        execute.writeIntLE(statement).writeByte(0).writeIntLE(1);
        sendCommand(COM_STMT_EXECUTE, toBytes(execute));
        ByteBuf response = readResultResponse(true);
        ByteBuf close = Unpooled.buffer().writeIntLE(statement);
        sendCommand(COM_STMT_CLOSE, toBytes(close));
        return response;
    }

    /** Reads one response to COM_QUERY or COM_STMT_EXECUTE: an OK, an ERR or one result set. */
    private ByteBuf readResultResponse(boolean binary) throws IOException {
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        byte[] first = readFrame(frames);
        int header = first[0] & 0xFF;
        if (header == 0x00 || header == 0xFF) {
            return wrap(frames);
        }
        long columns = LengthEncoded.readInt(Unpooled.wrappedBuffer(first));
        for (long i = 0; i < columns; i++) {
            readFrame(frames);
        }
        if (!deprecateEof) {
            readFrame(frames);
        }
        while (true) {
            byte[] row = readFrame(frames);
            int h = row.length == 0 ? -1 : row[0] & 0xFF;
            if (h == 0xFF || (h == 0xFE && row.length < (deprecateEof ? Frame.MAX_PAYLOAD : 9))) {
                return wrap(frames);
            }
        }
    }

    private ByteBuf wrap(ByteArrayOutputStream frames) {
        byte[] bytes = frames.toByteArray();
        return alloc.buffer(bytes.length).writeBytes(bytes);
    }

    private void sendCommand(int command, byte[] body) throws IOException {
        byte[] payload = new byte[body.length + 1];
        payload[0] = (byte) command;
        System.arraycopy(body, 0, payload, 1, body.length);
        writePacket(0, payload);
    }

    private void writePacket(int sequenceId, byte[] payload) throws IOException {
        byte[] frame = new byte[Frame.HEADER_SIZE + payload.length];
        frame[0] = (byte) payload.length;
        frame[1] = (byte) (payload.length >>> 8);
        frame[2] = (byte) (payload.length >>> 16);
        frame[3] = (byte) sequenceId;
        System.arraycopy(payload, 0, frame, Frame.HEADER_SIZE, payload.length);
        out.write(frame);
        out.flush();
    }

    /** Reads one frame, appends it (header included) to {@code frames} and returns its payload. */
    private byte[] readFrame(ByteArrayOutputStream frames) throws IOException {
        byte[] header = in.readNBytes(Frame.HEADER_SIZE);
        if (header.length < Frame.HEADER_SIZE) {
            throw new EOFException("server closed the connection");
        }
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        byte[] payload = in.readNBytes(length);
        if (payload.length < length) {
            throw new EOFException("server closed the connection inside a packet");
        }
        frames.write(header);
        frames.write(payload);
        return payload;
    }

    private byte[] readPayload() throws IOException {
        return readFrame(new ByteArrayOutputStream());
    }

    private static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
