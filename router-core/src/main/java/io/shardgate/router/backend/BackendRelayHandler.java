package io.shardgate.router.backend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardgate.protocol.codec.ResponseScanner;
import io.shardgate.protocol.codec.UnexpectedResponseException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays a backend's responses to the client as raw bytes: each read is scanned for response
 * boundaries and the complete part is written on as a retained slice of the very buffer that was
 * read (zero copy, one write per read, one flush per read batch). Only the head of a
 * state-carrying packet split across reads is copied and held back.
 *
 * <p>Sequence ids are left as the server sent them: the client's command started at 0 and so
 * did the copy the backend received. Runs on the session's event loop.
 *
 * <p>Query timeout: while a response is outstanding, a backend that sends nothing for {@code
 * server.query_timeout_millis} (a stopped, hung or unreachable server, which TCP alone never
 * reports) is closed and the target hears {@link RelayTarget#queryTimedOut}. One timer per busy
 * connection ticks at a quarter of the timeout and counts silent ticks, rather than a timer per
 * statement or a clock read per socket read: the hot path only clears a counter.
 */
public final class BackendRelayHandler extends ChannelInboundHandlerAdapter implements ResponseScanner.Listener {
    private static final Logger log = LoggerFactory.getLogger(BackendRelayHandler.class);

    /** Where responses go: the session that borrowed the connection, or the pool while idle. */
    private RelayTarget target;

    private final ResponseScanner scanner;
    private final String label;
    /** Start of a packet whose state-carrying bytes have not all arrived; owned here. */
    private ByteBuf held;
    /** When non-null, responses are collected here for the router instead of sent to the client. */
    private ByteBuf internal;
    /** The internal response is handed over in chunks as it arrives ({@link RelayTarget#internalChunk}). */
    private boolean streaming;
    /**
     * A client's command was sent right behind the internal one in flight (a pipelined BEGIN): its
     * response, read after the internal one's, goes to the client.
     */
    private boolean clientNext;

    private int completed;
    private int lastStatus;
    private boolean lastError;
    private boolean midPacket;
    private int nextSequenceId;
    private boolean closing;
    /** The client channel written to since the last flush, or null. */
    private Channel unflushed;
    /** Whether a byte of the announced response arrived (see {@link #responseStarted}). */
    private boolean received;
    /** Whether bytes of the current response went to the client (else an error for it starts at 1). */
    private boolean relayed;
    /** Bytes of a frame whose start was relayed but whose end has not arrived. */
    private int pendingSkip;
    /** The last frame relayed is 0xFFFFFF bytes long: its packet goes on in the next frame. */
    private boolean continued;

    /** {@code server.query_timeout_millis}; 0: no limit. */
    private final int queryTimeoutMillis;

    private ChannelHandlerContext ctx;
    /** The silence check while a response is outstanding, or null. */
    private ScheduledFuture<?> silenceCheck;
    /** Checks since the backend last sent anything (or a response was last expected). */
    private int silentTicks;
    /** The server waits for the client's LOCAL INFILE data: its silence is the client's. */
    private boolean awaitingUpload;

    /** A relay without a query timeout. */
    public BackendRelayHandler(RelayTarget target, boolean deprecateEof, String label) {
        this(target, deprecateEof, label, 0);
    }

    /** A relay that gives up on a backend silent for {@code queryTimeoutMillis} (0: never) mid-response. */
    public BackendRelayHandler(RelayTarget target, boolean deprecateEof, String label, int queryTimeoutMillis) {
        this.target = target;
        this.scanner = new ResponseScanner(deprecateEof, this);
        this.label = label;
        this.queryTimeoutMillis = queryTimeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    ResponseScanner scanner() {
        return scanner;
    }

    /**
     * Hands the connection to another client session (or back to its pool); only while idle. What
     * was relayed to the old target's client is flushed at the end of the read batch as usual (the
     * client channel is remembered), not here: a lease releases its connection while its
     * completion runs, and the session's work after a response (the result cache's invalidation of
     * a write) must happen before the client can see the response.
     */
    public void target(RelayTarget target) {
        this.target = target;
    }

    /** Announces the response to a command relayed to the backend. */
    public void expect(ResponseScanner.Response response) {
        if (internal != null) { // sent behind the router's own command: see #clientNext
            clientNext = true;
            scanner.expect(response);
            return;
        }
        if (scanner.idle()) {
            nextSequenceId = 1; // a response starts right after the client's command (sequence 0)
            received = false;
            relayed = false;
        }
        scanner.expect(response);
        watchSilence();
    }

    /** Server status flags of the backend's last OK or EOF. */
    public int statusFlags() {
        return scanner.statusFlags();
    }

    /** Last insert id of the OK that ended the last response (0 when there was none). */
    public long insertId() {
        return scanner.insertId();
    }

    /** Rows the last response relayed (row packets of all its result sets). */
    public long rows() {
        return scanner.rows();
    }

    /**
     * Whether the server session's diagnostics area may hold another session's warnings or error:
     * set when a session gives the connection back with them, cleared by the next borrower, which
     * empties the area first.
     */
    private boolean diagnosticsDirty;

    public boolean diagnosticsDirty() {
        return diagnosticsDirty;
    }

    public void diagnosticsDirty(boolean dirty) {
        this.diagnosticsDirty = dirty;
    }

    /** Whether the last response raised warnings or ended in an error. */
    public boolean raisedDiagnostics() {
        return lastError || scanner.warnings() > 0;
    }

    /** Warnings the last response's statement raised (0 when it ended in an ERR). */
    public int warnings() {
        return scanner.warnings();
    }

    /** Affected rows of the OK packets of the last response. */
    public long affectedRows() {
        return scanner.affectedRows();
    }

    /** Results (result sets and OKs) of the last response. */
    public int results() {
        return scanner.results();
    }

    /** Of {@link #results()}, the OKs. */
    public int okResults() {
        return scanner.okResults();
    }

    /** Announces a command whose response the router consumes itself; nothing else may be in flight. */
    public void expectInternal(ResponseScanner.Response response, Channel backend) {
        internal = backend.alloc().buffer(64);
        streaming = false;
        received = false;
        scanner.pauseAfterResponse(true); // the client's response may follow in the same read
        scanner.expect(response);
        watchSilence();
    }

    /**
     * As {@link #expectInternal}, but the response's bytes go to {@link RelayTarget#internalChunk}
     * as they arrive (cut anywhere but inside a state-carrying packet), and the final {@link
     * RelayTarget#internalResponse} gets an empty buffer: the router merges rows without holding
     * whole responses.
     */
    public void expectInternalStream(ResponseScanner.Response response) {
        internal = Unpooled.EMPTY_BUFFER;
        streaming = true;
        received = false;
        scanner.expect(response);
        watchSilence();
    }

    /** A response is now outstanding: (re)starts counting the backend's silence. */
    private void watchSilence() {
        silentTicks = 0;
        if (queryTimeoutMillis > 0 && silenceCheck == null && ctx != null && !closing) {
            silenceCheck = ctx.executor().schedule(this::checkSilence, tick(), TimeUnit.MILLISECONDS);
        }
    }

    private long tick() {
        return Math.max(1, queryTimeoutMillis / 4);
    }

    private void checkSilence() {
        silenceCheck = null;
        if (closing || idle()) {
            return; // nothing outstanding: the next expect() starts a new check
        }
        if (awaitingUpload || !ctx.channel().config().isAutoRead()) {
            // the wait is the client's (an upload, or a slow reader holding back our reads)
            silentTicks = 0;
        } else if (++silentTicks >= 4) {
            log.warn("backend {}: no response for {} ms; closing it", label, queryTimeoutMillis);
            closing = true;
            release();
            ctx.close();
            target.queryTimedOut(
                    "backend " + label + " sent nothing for " + queryTimeoutMillis
                            + " ms (server.query_timeout_millis)",
                    midPacket,
                    nextSequenceId);
            return;
        }
        silenceCheck = ctx.executor().schedule(this::checkSilence, tick(), TimeUnit.MILLISECONDS);
    }

    /** True once a byte of the response announced last has arrived: the server read the command. */
    public boolean responseStarted() {
        return received;
    }

    /** True when no response is outstanding. */
    public boolean idle() {
        return scanner.idle() && held == null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        silentTicks = 0;
        awaitingUpload = false;
        received = true;
        if (held != null) {
            ByteBuf joined = ctx.alloc().buffer(held.readableBytes() + in.readableBytes());
            joined.writeBytes(held).writeBytes(in);
            held.release();
            held = null;
            in.release();
            in = joined;
        }
        try {
            relay(ctx, in);
        } catch (UnexpectedResponseException e) {
            log.warn("backend {}: {}; closing it", label, e.getMessage());
            lose(ctx, e.getMessage());
        } finally {
            in.release();
        }
    }

    private void relay(ChannelHandlerContext ctx, ByteBuf in) {
        while (true) {
            int start = in.readerIndex();
            int upTo = scanner.scan(in);
            if (upTo > start) {
                trackSequence(in, start, upTo);
                if (internal != null && streaming) {
                    target.internalChunk(in.retainedSlice(start, upTo - start));
                } else if (internal != null) {
                    internal.writeBytes(in, start, upTo - start);
                } else {
                    Channel client = target.client();
                    client.write(in.retainedSlice(start, upTo - start), client.voidPromise());
                    unflushed = client;
                    relayed = true;
                }
            }
            if (completed > 0 && internal != null && upTo < in.writerIndex()) {
                // the scan paused after the router's own response: the client's follows (#clientNext)
                complete();
                if (closing) {
                    return; // the router gave the connection up on that response (see #abort)
                }
                in.readerIndex(upTo);
                continue;
            }
            if (upTo < in.writerIndex()) {
                held = ctx.alloc().buffer(in.writerIndex() - upTo);
                held.writeBytes(in, upTo, in.writerIndex() - upTo);
            }
            complete();
            return;
        }
    }

    /** Hands the responses the last scan completed to the target. */
    private void complete() {
        if (completed == 0) {
            return;
        }
        int n = completed;
        completed = 0;
        if (internal != null) {
            ByteBuf response = internal;
            internal = null;
            streaming = false;
            scanner.pauseAfterResponse(false);
            if (clientNext) { // the client's response starts now: as after expect() on an idle scanner
                clientNext = false;
                nextSequenceId = 1;
                relayed = false;
            }
            try {
                target.internalResponse(response, lastError);
            } finally {
                response.release();
            }
        } else {
            target.responsesComplete(n, lastStatus, lastError);
        }
    }

    /**
     * Gives the connection up on the router's initiative, reporting it lost to the target with
     * {@code reason} (a pipelined BEGIN failed: the statement sent behind it must not be answered as
     * if it ran inside the transaction).
     */
    public void abort(String reason) {
        if (ctx != null) {
            lose(ctx, reason);
        }
    }

    /**
     * The sequence id the client expects next: after the relayed part of a response, or 1 when
     * none of it reached the client (the connection died during an internal command such as a
     * lazy COM_STMT_PREPARE, whose sequence ids the client never saw).
     */
    private int clientSequenceId() {
        return relayed ? nextSequenceId : 1;
    }

    /** Remembers whether a packet is cut in the middle and which sequence id comes next. */
    private void trackSequence(ByteBuf in, int start, int upTo) {
        // walk frame headers only; the scanner has validated them
        int i = start + pendingSkip;
        while (i + 4 <= upTo) {
            int length = in.getUnsignedMediumLE(i);
            nextSequenceId = (in.getUnsignedByte(i + 3) + 1) & 0xFF;
            continued = length == 0xFFFFFF;
            i += 4 + length;
        }
        pendingSkip = Math.max(0, i - upTo);
        midPacket = pendingSkip > 0 || (i < upTo) || continued;
    }

    @Override
    public void responseComplete(int statusFlags, boolean error) {
        completed++;
        lastStatus = statusFlags;
        lastError = error;
    }

    @Override
    public void localInfileRequested() {
        awaitingUpload = true;
        target.localInfileRequested();
    }

    @Override
    public void prepareOk(ByteBuf in, int payload) {
        if (internal == null) {
            target.prepareOk(in, payload);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flush();
    }

    /** One flush per read batch, to the client the bytes were written to (the target may have changed since). */
    private void flush() {
        if (unflushed != null) {
            Channel client = unflushed;
            unflushed = null;
            client.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        if (!closing) {
            target.backendLost("backend " + label + " closed the connection", midPacket, clientSequenceId());
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn("backend {}: {}", label, cause.toString());
        lose(ctx, cause.getMessage());
    }

    private void lose(ChannelHandlerContext ctx, String reason) {
        if (!closing) {
            closing = true;
            release();
            ctx.close();
            target.backendLost("backend " + label + ": " + reason, midPacket, clientSequenceId());
        }
    }

    /** Closes the backend on the router's initiative (the client left); reports nothing. */
    public void closeQuietly(Channel backend) {
        closing = true;
        backend.close();
    }

    private void release() {
        flush(); // what was relayed before the connection ended
        if (silenceCheck != null) {
            silenceCheck.cancel(false);
            silenceCheck = null;
        }
        if (held != null) {
            held.release();
            held = null;
        }
        if (internal != null) {
            internal.release();
            internal = null;
        }
        streaming = false;
        clientNext = false;
    }
}
