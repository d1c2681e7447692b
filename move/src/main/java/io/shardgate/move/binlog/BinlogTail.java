package io.shardgate.move.binlog;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import io.shardgate.move.TableShape;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the source shard's binary log from a stored position and hands the primary keys each
 * committed transaction changed in the watched tables, with the position after it, to a consumer:
 * the catch-up phase of a move (the mover re-reads those rows from the source and writes them to
 * the target).
 *
 * <p>Design: one mysql-binlog-connector-java {@link BinaryLogClient} connected as a replica (its own
 * server id), started at the position; its thread deserializes events, a {@link
 * TransactionCollector} groups them into transactions and calls the consumer on that thread, in
 * log order, one transaction at a time — the consumer's pace is the stream's (the socket buffers
 * the rest). The library's reconnect (keep-alive) is off: a reconnect from the middle of a
 * transaction would lose its first events, so any fault stops the tail instead and the caller
 * starts a new one from the last position its consumer stored.
 *
 * <p>Stops with a failure ({@link #stopped()} completes exceptionally, {@link #awaitPosition}
 * throws): when the connection is lost, silent for a minute although the source sends heartbeats
 * every 5 s, or ended by the server, when an event cannot be
 * deserialized (the library would skip it), when the consumer throws, and on whatever the collector
 * refuses (DDL on a watched table, see {@link TransactionCollector}). {@link #close()} stops it
 * without failure.
 *
 * <p>Threading: {@link #position()}, the counters, {@link #awaitPosition} and {@link #close()} are
 * safe from any thread.
 */
public final class BinlogTail implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BinlogTail.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    /** The source sends a heartbeat when it has had nothing to send for this long. */
    private static final Duration HEARTBEAT = Duration.ofSeconds(5);
    /**
     * Silence after which the connection counts as lost: without it a source that vanished from the
     * network (no FIN, no RST) would leave the tail waiting forever instead of failing.
     */
    private static final Duration SILENCE = Duration.ofSeconds(60);

    private final BinaryLogClient client;
    private final TransactionCollector collector;
    private final Consumer<ChangedKeys> consumer;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Object progress = new Object();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private volatile BinlogPosition position;
    private volatile long lastEventMillis;
    private volatile boolean closing;
    private volatile long rowsRead;

    private BinlogTail(
            ReplicaLogin login, BinlogPosition from, Collection<TableShape> watched, Consumer<ChangedKeys> consumer) {
        this.consumer = consumer;
        this.collector = new TransactionCollector(watched, from, this::handOut);
        this.position = from;
        this.client = new BinaryLogClient(login.host(), login.port(), login.user(), login.password());
        client.setServerId(login.serverId());
        client.setBinlogFilename(from.file());
        client.setBinlogPosition(from.position());
        client.setKeepAlive(false);
        client.setHeartbeatInterval(HEARTBEAT.toMillis());
        client.setSocketFactory(() -> {
            Socket socket = new Socket();
            socket.setSoTimeout((int) SILENCE.toMillis());
            return socket;
        });
        EventDeserializer deserializer = new EventDeserializer();
        // strings as bytes: the log does not say a column's character set, PrimaryKeyValues decodes them
        deserializer.setCompatibilityMode(
                EventDeserializer.CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY,
                EventDeserializer.CompatibilityMode.DATE_AND_TIME_AS_LONG_MICRO);
        client.setEventDeserializer(deserializer);
        client.registerEventListener(this::onEvent);
        client.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
            @Override
            public void onCommunicationFailure(BinaryLogClient c, Exception e) {
                fail(new IllegalStateException(
                        "lost the binary log stream of " + login + " after " + position + ": " + e, e));
            }

            @Override
            public void onEventDeserializationFailure(BinaryLogClient c, Exception e) {
                fail(new IllegalStateException(
                        "cannot read an event of " + login + "'s binary log after " + position + ": " + e, e));
            }

            @Override
            public void onDisconnect(BinaryLogClient c) {
                if (!closing) {
                    // the source closed it (a restart, a kill): a lost connection, as the mover resumes on
                    fail(new IllegalStateException(
                            "the binary log stream of " + login + " ended after " + position,
                            new java.io.EOFException("the source closed the binary log stream")));
                }
            }
        });
    }

    /**
     * Connects to the source and follows its binary log from {@code from} (a position a tail handed
     * out before, or {@link BinlogSource#current} when the copy began).
     *
     * @param watched the tables whose changed keys to report
     * @param consumer gets each committed transaction in log order on the tail's thread; a
     *     transaction that changed no watched table comes with empty keys, so the stored position
     *     moves on. An exception from it stops the tail with a failure.
     * @throws IllegalArgumentException when a watched table's primary key cannot be followed ({@link
     *     PrimaryKeyValues#of})
     * @throws IOException when the connection or the replica login fails
     */
    public static BinlogTail start(
            ReplicaLogin login, BinlogPosition from, Collection<TableShape> watched, Consumer<ChangedKeys> consumer)
            throws IOException {
        BinlogTail tail = new BinlogTail(login, from, watched, consumer);
        try {
            tail.client.connect(CONNECT_TIMEOUT.toMillis());
        } catch (TimeoutException e) {
            tail.close();
            throw new IOException("could not follow the binary log of " + login + " within " + CONNECT_TIMEOUT, e);
        }
        LOG.info(
                "following the binary log of {} from {} for {}",
                login,
                from,
                tail.collector.watched().stream().map(TableShape::qualifiedName).toList());
        return tail;
    }

    /**
     * The position up to which every committed transaction has been handed to the consumer (and the
     * consumer has returned): the last transaction's end, or a later point between transactions. Not
     * a resume point while an XA transaction is prepared: store {@link ChangedKeys#position()}.
     */
    public BinlogPosition position() {
        return position;
    }

    /**
     * When the last event the tail read was written on the source, by the source's clock; empty
     * before the first. The lag of a tail that reads continuously is now minus this; an idle source
     * writes no events, so a caller that finds this old checks {@link BinlogSource#current} too.
     */
    public Optional<Instant> lastEventTime() {
        long millis = lastEventMillis;
        return millis == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
    }

    /** Events read (heartbeats not counted). */
    public long events() {
        return events.get();
    }

    /** Committed transactions (and statements of their own) handed out, with or without keys. */
    public long transactions() {
        return transactions.get();
    }

    /** Row images of the watched tables read (an update counts once). */
    public long rows() {
        return rowsRead;
    }

    /** Completes when the tail stops: normally after {@link #close()}, exceptionally with the fault. */
    public CompletableFuture<Void> stopped() {
        return stopped;
    }

    /** Why the tail stopped, when it stopped on a fault. */
    public Optional<Throwable> failure() {
        if (!stopped.isCompletedExceptionally()) {
            return Optional.empty();
        }
        try {
            stopped.join();
            return Optional.empty();
        } catch (CompletionException | CancellationException e) {
            return Optional.of(e.getCause() != null ? e.getCause() : e);
        }
    }

    /**
     * Waits until every transaction up to {@code target} has been handed out (the cutover's "catch up
     * to where the source is now"): true once {@link #position()} reached it, false after {@code
     * timeout}.
     *
     * @throws IllegalStateException when the tail failed or was closed before reaching it
     */
    public boolean awaitPosition(BinlogPosition target, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            while (true) {
                if (position.reached(target)) {
                    return true;
                }
                if (stopped.isDone()) {
                    Throwable cause = failure().orElse(null);
                    throw new IllegalStateException(
                            "the binary log tail stopped at " + position + " before " + target
                                    + (cause == null ? "" : ": " + cause.getMessage()),
                            cause);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                progress.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** Stops following; the consumer is not called after this returns. */
    @Override
    public void close() {
        closing = true;
        try {
            client.disconnect();
        } catch (IOException e) {
            LOG.debug("closing the binary log connection: {}", e.toString());
        }
        if (stopped.complete(null)) {
            signal();
        }
    }

    private void onEvent(Event event) {
        if (stopped.isDone()) {
            return;
        }
        try {
            long timestamp = event.getHeader().getTimestamp();
            // heartbeats are not events of the log; the artificial ROTATE and FORMAT_DESCRIPTION at
            // the start carry no time
            if (event.getHeader().getEventType() != EventType.HEARTBEAT) {
                events.incrementAndGet();
                if (timestamp > 0) {
                    lastEventMillis = timestamp;
                }
            }
            collector.accept(event);
            rowsRead = collector.rows();
            BinlogPosition reached = collector.position();
            if (!reached.equals(position)) {
                position = reached;
                signal();
            }
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    private void handOut(ChangedKeys changed) {
        if (!stopped.isDone()) {
            try {
                consumer.accept(changed);
            } catch (RuntimeException e) {
                throw new IllegalStateException(
                        "the consumer failed on the transaction ending at " + changed.position() + ": " + e, e);
            }
            transactions.incrementAndGet();
        }
    }

    private void fail(Throwable cause) {
        if (stopped.completeExceptionally(cause)) {
            LOG.warn("binary log tail stopped at {}: {}", position, cause.getMessage());
            signal();
            // not on the client's thread: disconnect() waits for that thread to leave its read loop
            Thread stopper = new Thread(
                    () -> {
                        try {
                            client.disconnect();
                        } catch (IOException e) {
                            LOG.debug("closing the binary log connection: {}", e.toString());
                        }
                    },
                    "binlog-tail-stop");
            stopper.setDaemon(true);
            stopper.start();
        }
    }

    private void signal() {
        synchronized (progress) {
            progress.notifyAll();
        }
    }
}
