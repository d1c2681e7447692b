package io.shardgate.router.fakebackend;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.packet.Capabilities;
import io.shardgate.protocol.packet.ColumnCount;
import io.shardgate.protocol.packet.ColumnDefinition41;
import io.shardgate.protocol.packet.ComStmtPrepareOk;
import io.shardgate.protocol.packet.EofPacket;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.packet.OkPacket;
import io.shardgate.protocol.row.TextRow;
import io.shardgate.protocol.type.CapabilityFlags;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.MySqlType;
import io.shardgate.protocol.type.ServerStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * What the {@link RecordingBackend} answers to one command: the payloads of its response, written
 * with the protocol module's packet writers and framed with sequence ids from 1 — or no answer, or
 * the server dying after part of it. Immutable.
 */
public final class Reply {
    /** Status flags of an idle autocommit session. */
    public static final int AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT;

    private final List<BiConsumer<ByteBuf, Capabilities>> packets;
    /** Bytes of the response the server sends before it dies; -1: all of it, and it lives on. */
    private final int lostAfter;

    private Reply(List<BiConsumer<ByteBuf, Capabilities>> packets, int lostAfter) {
        this.packets = List.copyOf(packets);
        this.lostAfter = lostAfter;
    }

    /** OK: nothing affected, autocommit on. */
    public static Reply ok() {
        return ok(AUTOCOMMIT);
    }

    public static Reply ok(int statusFlags) {
        return ok(0, 0, statusFlags, 0);
    }

    public static Reply ok(long affectedRows, long insertId, int statusFlags, int warnings) {
        return new Reply(
                List.of((out, caps) -> OkPacket.of(affectedRows, insertId, statusFlags, warnings)
                        .write(out, caps)),
                -1);
    }

    public static Reply err(int code, String sqlState, String message) {
        return new Reply(List.of((out, caps) -> new ErrPacket(code, sqlState, message).write(out, caps)), -1);
    }

    /** A text result set of string columns: column count, definitions, rows, each end as negotiated. */
    public static Reply rows(List<String> columns, int statusFlags, List<List<String>> rows) {
        List<ColumnDefinition41> definitions = new ArrayList<>();
        for (String name : columns) {
            definitions.add(new ColumnDefinition41(
                    "def", "", "", "", name, "", Collations.UTF8MB4_GENERAL_CI, 255, MySqlType.VAR_STRING, 0, 0));
        }
        List<BiConsumer<ByteBuf, Capabilities>> packets = new ArrayList<>();
        packets.add((out, caps) -> new ColumnCount(columns.size()).write(out, caps));
        for (ColumnDefinition41 d : definitions) {
            packets.add(d::write);
        }
        packets.add((out, caps) -> {
            if (!caps.has(CapabilityFlags.CLIENT_DEPRECATE_EOF)) {
                new EofPacket(0, statusFlags).write(out);
            }
        });
        for (List<String> row : rows) {
            // a string column's text value is its bytes
            List<byte[]> values =
                    row.stream().map(v -> v.getBytes(StandardCharsets.UTF_8)).toList();
            packets.add((out, caps) -> TextRow.write(out, definitions, values));
        }
        packets.add((out, caps) -> {
            if (caps.has(CapabilityFlags.CLIENT_DEPRECATE_EOF)) {
                new OkPacket(OkPacket.EOF_HEADER, 0, 0, statusFlags, 0, "", null).write(out, caps);
            } else {
                new EofPacket(0, statusFlags).write(out);
            }
        });
        return new Reply(packets, -1);
    }

    /**
     * COM_STMT_PREPARE_OK for a statement without result columns and with {@code params} parameters,
     * their definitions following (each end as negotiated).
     */
    public static Reply prepared(long statementId, int params) {
        List<BiConsumer<ByteBuf, Capabilities>> packets = new ArrayList<>();
        packets.add((out, caps) -> new ComStmtPrepareOk(statementId, 0, params, 0).write(out));
        ColumnDefinition41 parameter =
                new ColumnDefinition41("def", "", "", "", "?", "", Collations.BINARY, 0, MySqlType.VAR_STRING, 0, 0);
        for (int i = 0; i < params; i++) {
            packets.add(parameter::write);
        }
        if (params > 0) {
            packets.add((out, caps) -> {
                if (!caps.has(CapabilityFlags.CLIENT_DEPRECATE_EOF)) {
                    new EofPacket(0, AUTOCOMMIT).write(out);
                }
            });
        }
        return new Reply(packets, -1);
    }

    /**
     * This response, then {@code next} (results of a multi-statement query: give every result but
     * the last SERVER_MORE_RESULTS_EXISTS).
     */
    public Reply then(Reply next) {
        List<BiConsumer<ByteBuf, Capabilities>> all = new ArrayList<>(packets);
        all.addAll(next.packets);
        return new Reply(all, next.lostAfter);
    }

    /** The server sends the first {@code bytes} of this response, then closes the connection. */
    public Reply lostAfter(int bytes) {
        return new Reply(packets, bytes);
    }

    /** The server closes the connection without answering. */
    public static Reply lost() {
        return new Reply(List.of(), 0);
    }

    /** The server keeps quiet: the command stays outstanding. */
    public static Reply none() {
        return new Reply(List.of(), -1);
    }

    int lostAfter() {
        return lostAfter;
    }

    /** The framed response, each packet after the one before it (empty for {@link #none()}). */
    void write(ByteBuf out, Capabilities caps) {
        int sequenceId = 1;
        for (BiConsumer<ByteBuf, Capabilities> packet : packets) {
            int header = out.writerIndex();
            out.writeZero(4);
            packet.accept(out, caps);
            int length = out.writerIndex() - header - 4;
            if (length == 0) {
                out.writerIndex(header); // an end the negotiated format leaves out
                continue;
            }
            out.setMediumLE(header, length);
            out.setByte(header + 3, sequenceId++);
        }
    }
}
