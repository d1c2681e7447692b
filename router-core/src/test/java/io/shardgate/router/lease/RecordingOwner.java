package io.shardgate.router.lease;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;

/** The command in flight as a lease sees it: records every event the lease passes on. */
final class RecordingOwner implements LeaseOwner {
    sealed interface Event permits Completed, Lost, TimedOut, Infile, PrepareOk {}

    record Completed(BackendLease lease, int statusFlags, boolean lastWasError) implements Event {}

    record Lost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) implements Event {}

    record TimedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) implements Event {}

    record Infile() implements Event {}

    record PrepareOk(BackendLease lease) implements Event {}

    private final Channel client;
    final List<Event> events = new ArrayList<>();
    /** What the owner does inside its completion, as the command in flight does (its lease's release). */
    java.util.function.Consumer<BackendLease> onComplete = lease -> {};

    RecordingOwner(Channel client) {
        this.client = client;
    }

    @Override
    public Channel client() {
        return client;
    }

    @Override
    public void responsesComplete(BackendLease lease, int statusFlags, boolean lastWasError) {
        events.add(new Completed(lease, statusFlags, lastWasError));
        onComplete.accept(lease);
    }

    @Override
    public void localInfileRequested() {
        events.add(new Infile());
    }

    @Override
    public void prepareOk(BackendLease lease, ByteBuf in, int payload) {
        events.add(new PrepareOk(lease));
    }

    @Override
    public void backendLost(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        events.add(new Lost(lease, reason, midPacket, nextSequenceId));
    }

    @Override
    public void queryTimedOut(BackendLease lease, String reason, boolean midPacket, int nextSequenceId) {
        events.add(new TimedOut(lease, reason, midPacket, nextSequenceId));
    }

    final io.shardgate.router.session.LastInsertId lastInsertId = new io.shardgate.router.session.LastInsertId();

    @Override
    public io.shardgate.router.session.LastInsertId lastInsertId() {
        return lastInsertId;
    }

    @Override
    public io.shardgate.sharding.digest.Digest statementDigest() {
        return null;
    }

    /** As the command in flight does: reads the value, keeps it, releases. */
    @Override
    public void readBeforeRelease(BackendLease lease) {
        lease.readLastInsertId(
                value -> {
                    lastInsertId.read(lease, value);
                    lease.releaseIfFree();
                },
                () -> {});
    }
}
