package io.shardgate.protocol.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.shardgate.protocol.codec.MalformedPacketException;
import io.shardgate.protocol.frame.Packet;
import io.shardgate.protocol.frame.PacketFrameDecoder;
import io.shardgate.protocol.frame.PacketTooLargeException;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ComChangeUser;
import io.shardgate.protocol.packet.ComFieldList;
import io.shardgate.protocol.packet.ComInitDb;
import io.shardgate.protocol.packet.ComQuery;
import io.shardgate.protocol.packet.ComSetOption;
import io.shardgate.protocol.packet.ComStmtClose;
import io.shardgate.protocol.packet.ComStmtExecute;
import io.shardgate.protocol.packet.ComStmtFetch;
import io.shardgate.protocol.packet.ComStmtPrepare;
import io.shardgate.protocol.packet.ComStmtReset;
import io.shardgate.protocol.packet.ComStmtSendLongData;
import io.shardgate.protocol.packet.HandshakeResponse41;
import io.shardgate.protocol.packet.ParameterType;
import io.shardgate.protocol.packet.SslRequest;
import io.shardgate.protocol.row.BinaryParameters;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.MySqlType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Coverage-guided fuzzing (Jazzer) of what a client can send the router: any byte stream, cut into
 * reads of any size, goes through {@link PacketFrameDecoder}, and every packet it yields is read as
 * the command its first byte names (COM_QUERY with and without query attributes, COM_STMT_EXECUTE
 * with any parameter block, COM_CHANGE_USER, ...) and as a HandshakeResponse41 / SSLRequest.
 *
 * <p>The contract under test: malformed input is a {@link MalformedPacketException} (the session
 * answers ER_MALFORMED_PACKET) or, for frames, a {@link PacketTooLargeException}; anything else
 * (an IndexOutOfBoundsException, a NegativeArraySizeException, an allocation as large as a length
 * prefix claims) is a finding. Without {@code JAZZER_FUZZ} the test replays the corpus in
 * {@code src/test/resources/io/shardgate/protocol/fuzz/ClientPacketFuzzTestInputs/}; see
 * CONTRIBUTING.md for a fuzzing run.
 */
class ClientPacketFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void clientStream(FuzzedDataProvider data) {
        int maxAllowedPacket = data.consumeInt(0, 4096);
        int readSize = data.consumeInt(1, 512);
        int flags = data.consumeInt();
        int paramCount = data.consumeInt(0, 64);
        List<ParameterType> bound = new ArrayList<>();
        if (data.consumeBoolean()) {
            for (int i = 0; i < paramCount; i++) {
                MySqlType[] types = MySqlType.values();
                bound.add(new ParameterType(types[data.consumeInt(0, types.length - 1)], data.consumeBoolean()));
            }
        }
        Capabilities caps = new Capabilities(flags | CapabilityFlags.CLIENT_PROTOCOL_41);
        byte[] stream = data.consumeRemainingAsBytes();

        EmbeddedChannel channel = new EmbeddedChannel(new PacketFrameDecoder(maxAllowedPacket));
        try {
            for (int at = 0; at < stream.length; at += readSize) {
                int n = Math.min(readSize, stream.length - at);
                try {
                    channel.writeInbound(Unpooled.copiedBuffer(stream, at, n));
                } catch (PacketTooLargeException e) {
                    assertThat(e.getMessage()).contains("max_allowed_packet");
                }
                Packet packet;
                while ((packet = channel.readInbound()) != null) {
                    try {
                        assertThat(packet.payload().readableBytes()).isLessThanOrEqualTo(maxAllowedPacket);
                        readAsEverything(packet.payload(), caps, paramCount, bound);
                    } finally {
                        packet.release();
                    }
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /** Reads {@code payload} as each packet a client may send at this point; neither retains nor releases it. */
    private static void readAsEverything(
            ByteBuf payload, Capabilities caps, int paramCount, List<ParameterType> bound) {
        expectWellFormedOrMalformed(payload, p -> HandshakeResponse41.read(p));
        if (SslRequest.isSslRequest(payload)) {
            expectWellFormedOrMalformed(payload, SslRequest::read);
        }
        if (!payload.isReadable()) {
            return;
        }
        Command command = Command.of(payload.getUnsignedByte(payload.readerIndex()));
        if (command == null) {
            return;
        }
        switch (command) {
            case COM_QUERY -> {
                expectWellFormedOrMalformed(payload, p -> ComQuery.read(p, caps));
                expectWellFormedOrMalformed(
                        payload, p -> ComQuery.read(p, caps.with(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES)));
            }
            case COM_INIT_DB -> expectWellFormedOrMalformed(payload, ComInitDb::read);
            case COM_STMT_PREPARE -> expectWellFormedOrMalformed(payload, ComStmtPrepare::read);
            case COM_STMT_EXECUTE -> {
                expectWellFormedOrMalformed(
                        payload, p -> BinaryParameters.decode(ComStmtExecute.read(p, caps, paramCount, bound)));
                expectWellFormedOrMalformed(
                        payload,
                        p -> BinaryParameters.decode(ComStmtExecute.read(
                                p, caps.with(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES), paramCount, bound)));
            }
            case COM_CHANGE_USER -> expectWellFormedOrMalformed(payload, p -> ComChangeUser.read(p, caps));
            case COM_FIELD_LIST -> expectWellFormedOrMalformed(payload, ComFieldList::read);
            case COM_SET_OPTION -> expectWellFormedOrMalformed(payload, ComSetOption::read);
            case COM_STMT_CLOSE -> expectWellFormedOrMalformed(payload, ComStmtClose::read);
            case COM_STMT_RESET -> expectWellFormedOrMalformed(payload, ComStmtReset::read);
            case COM_STMT_FETCH -> expectWellFormedOrMalformed(payload, ComStmtFetch::read);
            case COM_STMT_SEND_LONG_DATA -> expectWellFormedOrMalformed(payload, ComStmtSendLongData::read);
            default -> {
                // commands without a payload layout: the router answers them without reading
            }
        }
    }

    /** Runs {@code reader} on a duplicate; a MalformedPacketException is the only acceptable failure. */
    private static void expectWellFormedOrMalformed(ByteBuf payload, Consumer<ByteBuf> reader) {
        try {
            reader.accept(payload.duplicate());
        } catch (MalformedPacketException expected) {
            // bad input, reported as such
        } catch (DecoderException e) {
            throw new AssertionError("a decoder error other than MalformedPacketException", e);
        }
    }
}
