package io.shardgate.it.proxy;

import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_CONNECT_WITH_DB;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_LONG_PASSWORD;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PLUGIN_AUTH;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_PROTOCOL_41;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_SECURE_CONNECTION;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_SSL;
import static io.shardgate.protocol.type.CapabilityFlags.CLIENT_TRANSACTIONS;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.auth.CachingSha2Password;
import io.shardgate.protocol.auth.MySqlNativePassword;
import io.shardgate.protocol.codec.LengthEncoded;
import io.shardgate.protocol.frame.Frame;
import io.shardgate.protocol.packet.AuthSwitchRequest;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComChangeUser;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.HandshakeV10;
import io.shardgate.protocol.packet.SslRequest;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A MySQL client on a plain {@link Socket} that speaks only as much of the protocol as a test
 * needs to log in and then send what real drivers never send: garbage, truncated or oversized
 * packets, unknown commands. Written by hand because drivers hide the packets.
 *
 * <p>Every read is bounded by the socket timeout, so a router that stops answering fails the test
 * with a {@link SocketTimeoutException} instead of hanging it. Not thread-safe, except that
 * {@link #writeFrame} may run on one thread while another reads.
 */
public final class RawMySqlClient implements AutoCloseable {
    /** Longest wait for one read; far above any normal answer. */
    static final int READ_TIMEOUT_MILLIS = 30_000;

    /** What the client announces: protocol 4.1 with plugin auth, and no CLIENT_DEPRECATE_EOF. */
    private static final int CAPABILITIES = CLIENT_LONG_PASSWORD
            | CLIENT_PROTOCOL_41
            | CLIENT_SECURE_CONNECTION
            | CLIENT_PLUGIN_AUTH
            | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CLIENT_TRANSACTIONS
            | CLIENT_CONNECT_WITH_DB;

    /** One packet as received: its sequence id and payload (frames of 16 MiB are not joined). */
    public record RawPacket(int sequenceId, byte[] payload) {
        int header() {
            return payload.length == 0 ? -1 : payload[0] & 0xFF;
        }

        public boolean isErr() {
            return header() == ErrPacket.HEADER;
        }

        public boolean isOk() {
            return header() == 0x00;
        }

        /** EOF_Packet: 0xFE and shorter than 9 bytes (a longer 0xFE packet is a length-encoded row). */
        boolean isEof() {
            return header() == 0xFE && payload.length < 9;
        }

        public ErrPacket err() {
            if (!isErr()) {
                throw new AssertionError("expected an ERR packet, got " + this);
            }
            return ErrPacket.read(Unpooled.wrappedBuffer(payload));
        }

        @Override
        public String toString() {
            return "RawPacket(seq=" + sequenceId + ", " + payload.length + " bytes: "
                    + ByteBufUtil.hexDump(payload, 0, Math.min(payload.length, 48)) + ")";
        }
    }

    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private HandshakeV10 greeting;
    private int nextSequenceId;
    /** Announced on top of {@link #CAPABILITIES} (e.g. CLIENT_MULTI_RESULTS). */
    private int extraCapabilities;

    private RawMySqlClient(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Connects to the router on 127.0.0.1 without reading anything yet. */
    static RawMySqlClient connect(int port) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
            return new RawMySqlClient(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Connects to the router on 127.0.0.1 from {@code localAddress} (any 127.x.y.z is loopback on
     * Linux), so that the router sees another client address.
     */
    static RawMySqlClient connectFrom(String localAddress, int port) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(localAddress, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
            return new RawMySqlClient(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Connects, reads the greeting and logs in with mysql_native_password; fails unless the router says OK. */
    public static RawMySqlClient loggedIn(int port, String user, String password, String database) throws IOException {
        return loggedIn(port, user, password, database, 0);
    }

    /** As {@link #loggedIn(int, String, String, String)}, announcing {@code extraCapabilities} too. */
    static RawMySqlClient loggedIn(int port, String user, String password, String database, int extraCapabilities)
            throws IOException {
        RawMySqlClient client = connect(port);
        client.extraCapabilities = extraCapabilities;
        try {
            client.readGreeting();
            RawPacket result = client.login(user, password, database);
            if (!result.isOk()) {
                throw new AssertionError("login as " + user + " failed: " + describe(result));
            }
            return client;
        } catch (IOException | RuntimeException | Error e) {
            client.close();
            throw e;
        }
    }

    /** Reads and parses the server's HandshakeV10. */
    HandshakeV10 readGreeting() throws IOException {
        return readGreetingFrom(readPacket());
    }

    /** Parses {@code packet}, already read, as the server's HandshakeV10. */
    HandshakeV10 readGreetingFrom(RawPacket packet) {
        if (packet.header() != HandshakeV10.PROTOCOL_VERSION) {
            throw new AssertionError("expected a HandshakeV10, got " + describe(packet));
        }
        greeting = HandshakeV10.read(Unpooled.wrappedBuffer(packet.payload()));
        return greeting;
    }

    HandshakeV10 greeting() {
        return greeting;
    }

    /**
     * Sends an SSLRequest and runs a TLS handshake that trusts any certificate (the router's is
     * self-signed); later packets travel inside TLS. Returns the negotiated TLS session's socket.
     */
    SSLSocket upgradeToTls() throws IOException {
        ByteBuf request = Unpooled.buffer(SslRequest.LENGTH);
        try {
            new SslRequest(new Capabilities(CAPABILITIES | CLIENT_SSL), 1 << 24, Collations.UTF8MB4_GENERAL_CI)
                    .write(request);
            writePacket(ByteBufUtil.getBytes(request));
        } finally {
            request.release();
        }
        SSLSocket tls =
                (SSLSocket) trustingTls().getSocketFactory().createSocket(socket, "127.0.0.1", socket.getPort(), true);
        tls.setUseClientMode(true);
        tls.setSoTimeout(READ_TIMEOUT_MILLIS);
        tls.startHandshake();
        socket = tls;
        in = tls.getInputStream();
        out = tls.getOutputStream();
        return tls;
    }

    private boolean secure() {
        return socket instanceof SSLSocket;
    }

    /** Sends a HandshakeResponse41 naming {@code plugin} with {@code authResponse}; returns the router's answer. */
    RawPacket sendHandshakeResponse(String user, String plugin, byte[] authResponse, String database)
            throws IOException {
        int flags = CAPABILITIES | extraCapabilities | (secure() ? CLIENT_SSL : 0);
        HandshakeResponse41 response = new HandshakeResponse41(
                new Capabilities(flags),
                1 << 24,
                Collations.UTF8MB4_GENERAL_CI,
                user,
                authResponse,
                database,
                plugin,
                Map.of());
        writePacket(encode(response::write));
        return readPacket();
    }

    /**
     * Logs in with mysql_native_password, following an AuthSwitchRequest to either plugin and
     * caching_sha2_password's full authentication (plaintext over TLS only). Returns the final
     * OK or ERR.
     */
    RawPacket login(String user, String password, String database) throws IOException {
        byte[] seed = greeting.authPluginData();
        RawPacket reply = sendHandshakeResponse(
                user, MySqlNativePassword.NAME, MySqlNativePassword.scramble(password, seed), database);
        String plugin = MySqlNativePassword.NAME;
        while (true) {
            switch (reply.header()) {
                case 0x00, 0xFF -> {
                    return reply;
                }
                case 0xFE -> {
                    AuthSwitchRequest request = AuthSwitchRequest.read(Unpooled.wrappedBuffer(reply.payload()));
                    plugin = request.pluginName();
                    seed = request.scramble();
                    reply = sendAuthData(
                            plugin.equals(CachingSha2Password.NAME)
                                    ? CachingSha2Password.scramble(password, seed)
                                    : MySqlNativePassword.scramble(password, seed));
                }
                case 0x01 -> {
                    byte[] data = Arrays.copyOfRange(reply.payload(), 1, reply.payload().length);
                    if (data.length == 1 && data[0] == CachingSha2Password.FAST_AUTH_SUCCESS) {
                        reply = readPacket();
                    } else if (data.length == 1
                            && data[0] == CachingSha2Password.PERFORM_FULL_AUTHENTICATION
                            && secure()) {
                        reply = sendAuthData(CachingSha2Password.plaintextPassword(password));
                    } else {
                        throw new AssertionError("unexpected AuthMoreData with " + plugin + ": " + reply);
                    }
                }
                default -> throw new AssertionError("unexpected packet during login: " + describe(reply));
            }
        }
    }

    /**
     * Sends COM_CHANGE_USER with a mysql_native_password scramble against the greeting's seed
     * (as drivers do) and returns the router's first answer.
     */
    RawPacket changeUser(String user, String password, String schema) throws IOException {
        ComChangeUser request = new ComChangeUser(
                user,
                MySqlNativePassword.scramble(password, greeting.authPluginData()),
                schema,
                Collations.UTF8MB4_GENERAL_CI,
                MySqlNativePassword.NAME,
                Map.of());
        sendCommand(encode(out -> request.write(out, new Capabilities(CAPABILITIES))));
        return readPacket();
    }

    /** Sends the next packet of the authentication exchange (auth switch response, password...). */
    RawPacket sendAuthData(byte[] data) throws IOException {
        writePacket(data);
        return readPacket();
    }

    /** Sends a command packet (sequence id 0) with this payload, without reading the answer. */
    public void sendCommand(byte[] payload) throws IOException {
        nextSequenceId = 0;
        writePacket(payload);
    }

    /** COM_QUERY's payload for {@code sql}. */
    public static byte[] comQuery(String sql) {
        byte[] text = sql.getBytes(UTF_8);
        byte[] payload = new byte[text.length + 1];
        payload[0] = (byte) Command.COM_QUERY.code();
        System.arraycopy(text, 0, payload, 1, text.length);
        return payload;
    }

    /**
     * Runs {@code sql} with COM_QUERY and returns its text rows (null for SQL NULL); fails on an
     * ERR or when the answer is not one result set.
     */
    List<List<String>> query(String sql) throws IOException {
        sendCommand(comQuery(sql));
        RawPacket first = readPacket();
        if (first.isErr() || first.isOk()) {
            throw new AssertionError(sql + ": expected a result set, got " + describe(first));
        }
        long columns = LengthEncoded.readInt(Unpooled.wrappedBuffer(first.payload()));
        for (long i = 0; i < columns; i++) {
            readPacket(); // column definitions are not needed
        }
        RawPacket eof = readPacket();
        if (!eof.isEof()) {
            throw new AssertionError(sql + ": expected EOF after the column definitions, got " + describe(eof));
        }
        List<List<String>> rows = new ArrayList<>();
        while (true) {
            RawPacket row = readPacket();
            if (row.isEof()) {
                return rows;
            }
            if (row.isErr()) {
                throw new AssertionError(sql + ": error in the middle of the result: " + describe(row));
            }
            ByteBuf values = Unpooled.wrappedBuffer(row.payload());
            List<String> cells = new ArrayList<>();
            while (values.isReadable()) {
                // in a text row 0xFB is NULL, not a length prefix
                if (LengthEncoded.isNull(values)) {
                    values.skipBytes(1);
                    cells.add(null);
                } else {
                    cells.add(LengthEncoded.readString(values, UTF_8));
                }
            }
            rows.add(cells);
        }
    }

    /**
     * Reads one whole answer to a command: an OK or ERR, or a result set up to its final EOF
     * (rows and column definitions skipped). Returns the first packet.
     */
    RawPacket readAnswer() throws IOException {
        RawPacket first = readPacket();
        if (first.isErr() || first.isOk()) {
            return first;
        }
        int eofs = 0;
        while (eofs < 2) {
            RawPacket next = readPacket();
            if (next.isErr()) {
                return next;
            }
            if (next.isEof()) {
                eofs++;
            }
        }
        return first;
    }

    /** Writes {@code bytes} as they are (frames the caller built); blocks while the socket is full. */
    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Writes one frame around {@code payload} with the next sequence id. */
    void writePacket(byte[] payload) throws IOException {
        writeFrame(nextSequenceId, payload, payload.length);
        nextSequenceId = (nextSequenceId + 1) & 0xFF;
    }

    /**
     * Writes a frame header announcing {@code announcedLength} bytes followed by {@code payload},
     * which may be shorter (a truncated packet).
     */
    void writeFrame(int sequenceId, byte[] payload, int announcedLength) throws IOException {
        byte[] frame = new byte[Frame.HEADER_SIZE + payload.length];
        frame[0] = (byte) announcedLength;
        frame[1] = (byte) (announcedLength >>> 8);
        frame[2] = (byte) (announcedLength >>> 16);
        frame[3] = (byte) sequenceId;
        System.arraycopy(payload, 0, frame, Frame.HEADER_SIZE, payload.length);
        out.write(frame);
        out.flush();
    }

    /** Reads one frame; an end of stream before it is complete is an {@link EOFException}. */
    public RawPacket readPacket() throws IOException {
        byte[] header = in.readNBytes(Frame.HEADER_SIZE);
        if (header.length < Frame.HEADER_SIZE) {
            throw new EOFException("connection closed by the router (" + header.length + " header bytes read)");
        }
        int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
        byte[] payload = in.readNBytes(length);
        if (payload.length < length) {
            throw new EOFException("connection closed in a packet of " + length + " bytes");
        }
        int sequenceId = header[3] & 0xFF;
        nextSequenceId = (sequenceId + 1) & 0xFF;
        return new RawPacket(sequenceId, payload);
    }

    /**
     * Whether the router closed the connection: reading returns end of stream or a reset. Any
     * byte read instead fails the test; a router that keeps the connection open runs into the
     * read timeout.
     */
    boolean closedByRouter() throws IOException {
        try {
            int b = in.read();
            if (b >= 0) {
                throw new AssertionError(
                        "expected the router to close the connection, read byte 0x" + Integer.toHexString(b));
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // connection reset: the router closed with unread bytes of ours
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static byte[] encode(Consumer<ByteBuf> writer) {
        ByteBuf buf = Unpooled.buffer(256);
        try {
            writer.accept(buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    static String describe(RawPacket packet) {
        return packet.isErr() ? packet.err().toString() : packet.toString();
    }

    private static SSLContext trustingTls() throws IOException {
        TrustManager trustAll = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {trustAll}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS", e);
        }
    }
}
