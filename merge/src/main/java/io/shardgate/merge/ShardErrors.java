package io.shardgate.merge;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.packet.ErrPacket;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The answer to a statement on several shards when some of them answered ERR: their own error, or
 * a refusal (1235) where the router cannot tell which answer MySQL gives on one server.
 * <ul>
 *   <li>Several shards failed on their data (SQLSTATE classes 21, 22, 23: a value out of range, a
 *       duplicate key, a subquery of more than one row) with different codes: MySQL stops at the
 *       first failing row in its own row order and reports that row's error, an order the shards do
 *       not share (an UPDATE failing with 1690 on one shard and 1264 on another is either on one
 *       server). With one code among them, that code is MySQL's answer too.
 *   <li>A data error under a LIMIT or OFFSET: each shard evaluates its own first rows (or, when
 *       groups span shards, all of its rows), of which MySQL may sort past the limit or skip as
 *       the offset without ever evaluating them ({@code SELECT -id ... ORDER BY id LIMIT 2, 10}
 *       never negates the smallest id). The shard's error may then be an error MySQL does not
 *       raise.
 * </ul>
 * Any other error (a missing table, a lock wait timeout, a deadlock, a killed query) is the
 * statement's on one server too, and reaches the client as the first failing shard sent it.
 */
final class ShardErrors {
    private ShardErrors() {}

    /**
     * The refusal to answer instead of the shards' errors, or null to forward the first of them.
     *
     * @param failed the shards' errors, in shard order (at least one)
     * @param windowed the statement has a LIMIT or OFFSET that the merge applies
     */
    static ErrPacket refusal(List<ErrPacket> failed, boolean windowed) {
        if (failed.isEmpty()) {
            throw new IllegalArgumentException("no error to answer");
        }
        boolean allData = failed.stream().allMatch(ShardErrors::dataError);
        if (allData && failed.stream().map(ErrPacket::code).distinct().count() > 1) {
            return MergeException.unsupported("a statement whose shards failed with different errors ("
                            + failed.stream()
                                    .map(e -> e.code() + ": " + e.message())
                                    .distinct()
                                    .collect(Collectors.joining("; "))
                            + "): MySQL reports the first failing row in its own row order,"
                            + " which the shards do not share")
                    .toErr();
        }
        ErrPacket first = failed.get(0);
        if (windowed && dataError(first)) {
            return MergeException.unsupported("a LIMIT or OFFSET on several shards where a shard failed on a row ("
                            + first.code() + ": " + first.message()
                            + "): each shard evaluates rows that MySQL may skip or sort past the limit without"
                            + " evaluating them, so MySQL may answer rows")
                    .toErr();
        }
        return null;
    }

    /**
     * Writes the answer to {@code failed}, the ERR payloads of the shards that failed in shard order:
     * the refusal, or the first payload as the shard sent it.
     */
    static void write(ResponseWriter writer, List<ByteBuf> failed, boolean windowed) {
        ErrPacket refusal =
                refusal(failed.stream().map(p -> ErrPacket.read(p.duplicate())).toList(), windowed);
        if (refusal == null) {
            writer.copy(failed.get(0));
        } else {
            refusal.write(writer.begin());
            writer.end();
        }
    }

    /** An error caused by a value in a row (SQLSTATE class 21, 22 or 23), not by the statement or the server. */
    static boolean dataError(ErrPacket error) {
        String state = error.sqlState();
        return state != null && (state.startsWith("21") || state.startsWith("22") || state.startsWith("23"));
    }
}
