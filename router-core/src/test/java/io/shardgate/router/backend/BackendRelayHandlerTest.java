package io.shardgate.router.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The relay between two {@link EmbeddedChannel}s, fed the MariaDB responses recorded for
 * {@code ResponseScannerTest} (protocol/src/test/resources/responses, read from the source tree)
 * in reads split every way. Every buffer the test feeds and every buffer the handler allocates
 * comes from a tracking allocator and must end released.
 */
class BackendRelayHandlerTest {
    /** Status flags the backend's login left (IN_TRANS | AUTOCOMMIT): no recorded packet has them. */
    private static final int BEFORE = 0x0003;
    /** The response carries no status flags of its own: they stay those seen before it. */
    private static final int KEEP = -1;

    private static final int MAX_FRAME = 0xFFFFFF;
    private static final Path RESPONSES = Path.of("..", "protocol", "src", "test", "resources", "responses");

    /** A recorded response and how it must end: final status flags per mode, or {@link #KEEP}. */
    record Case(String fixture, Response response, int eofStatus, int deprecateEofStatus, boolean error) {
        /** The flags its completion reports when the flags before it were {@code before}. */
        int status(boolean deprecateEof, int before) {
            int own = deprecateEof ? deprecateEofStatus : eofStatus;
            return own == KEEP ? before : own;
        }

        int status(boolean deprecateEof) {
            return status(deprecateEof, BEFORE);
        }
    }

    private static final List<Case> CASES = List.of(
            new Case("ok-insert", Response.RESULT_SET, 0x0002, 0x0002, false),
            new Case("err-no-table", Response.RESULT_SET, KEEP, KEEP, true),
            new Case("text-rows-nulls", Response.RESULT_SET, 0x0022, 0x0022, false),
            new Case("text-zero-rows", Response.RESULT_SET, 0x0002, 0x0002, false),
            new Case("multi-statement", Response.RESULT_SET, 0x0002, 0x0002, false),
            new Case("call-two-results", Response.RESULT_SET, 0x0022, 0x0022, false),
            new Case("error-mid-rows", Response.RESULT_SET, 0x0022, KEEP, true),
            new Case("local-infile", Response.RESULT_SET, 0x0002, 0x0002, false),
            new Case("field-list", Response.FIELD_LIST, 0x0002, 0x0002, false),
            new Case("statistics", Response.STATISTICS, KEEP, KEEP, false),
            new Case("ping", Response.SINGLE, 0x0002, 0x0002, false),
            new Case("init-db-err", Response.SINGLE, KEEP, KEEP, true),
            new Case("prepare-params-columns", Response.PREPARE, 0x0002, KEEP, false),
            new Case("prepare-params-only", Response.PREPARE, 0x0002, KEEP, false),
            new Case("prepare-neither", Response.PREPARE, KEEP, KEEP, false),
            new Case("execute-binary-rows", Response.RESULT_SET, 0x0002, 0x0002, false),
            // COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY: the cursor opens, no rows follow
            new Case("execute-cursor-open", Response.RESULT_SET_OR_CURSOR, 0x0042, 0x0042, false),
            new Case("fetch-two-rows", Response.ROWS, 0x0042, 0x0042, false),
            new Case("fetch-last-rows", Response.ROWS, 0x0082, 0x0082, false),
            new Case("fetch-err", Response.ROWS, KEEP, KEEP, true),
            // issue 23: result sets sent while the procedure's cursor is open, then the CALL's OK
            new Case("call-cursor-loop", Response.RESULT_SET, 0x0022, 0x0022, false),
            new Case("execute-call-cursor-flag", Response.RESULT_SET_OR_CURSOR, 0x0022, 0x0022, false));

    static Stream<Arguments> cases() {
        return Stream.of(true, false).flatMap(deprecateEof -> CASES.stream().map(c -> Arguments.of(c, deprecateEof)));
    }

    static byte[] fixture(String name, boolean deprecateEof) {
        Path path = RESPONSES.resolve(name + (deprecateEof ? ".deprecate-eof" : ".eof") + ".hex");
        try {
            StringBuilder hex = new StringBuilder();
            for (String line : Files.readAllLines(path, StandardCharsets.US_ASCII)) {
                if (!line.startsWith("#")) {
                    hex.append(line.strip());
                }
            }
            return HexFormat.of().parseHex(hex);
        } catch (IOException e) {
            throw new UncheckedIOException("run from router-core: " + path.toAbsolutePath(), e);
        }
    }

    private static byte[] concat(byte[]... parts) {
        byte[] all = new byte[0];
        for (byte[] p : parts) {
            all = Arrays.copyOf(all, all.length + p.length);
            System.arraycopy(p, 0, all, all.length - p.length, p.length);
        }
        return all;
    }

    /** Hands out unpooled (leak-detected) buffers and remembers them, to see each one released. */
    static final class TrackingAllocator extends AbstractByteBufAllocator {
        final List<ByteBuf> allocated = new ArrayList<>();

        TrackingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
            allocated.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
            allocated.add(b);
            return b;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    sealed interface Event permits Completed, Internal, Infile, Lost, TimedOut {}

    /** {@code written}: bytes the relay had written to the client when the call came. */
    record Completed(int count, int status, boolean error, long written) implements Event {}

    record Internal(String hex, boolean error, long written) implements Event {}

    record Infile(long written) implements Event {}

    record Lost(String reason, boolean midPacket, int nextSequenceId, long written) implements Event {}

    record TimedOut(String reason, boolean midPacket, int nextSequenceId) implements Event {}

    /** The frontend's side: a client channel that counts what is written to it, and every call. */
    final class Target implements RelayTarget {
        final EmbeddedChannel client = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written += ((ByteBuf) msg).readableBytes();
                ctx.write(msg, promise);
            }
        });
        final List<Event> events = new ArrayList<>();
        long written;
        /** Runs on the next completion, as a session sends its next command from there. */
        Consumer<Target> onComplete = t -> {};

        @Override
        public Channel client() {
            return client;
        }

        @Override
        public void responsesComplete(int count, int statusFlags, boolean lastWasError) {
            events.add(new Completed(count, statusFlags, lastWasError, written));
            Consumer<Target> next = onComplete;
            onComplete = t -> {};
            next.accept(this);
        }

        @Override
        public void internalResponse(ByteBuf response, boolean error) {
            events.add(new Internal(ByteBufUtil.hexDump(response), error, written));
            Consumer<Target> next = onComplete;
            onComplete = t -> {};
            next.accept(this);
        }

        @Override
        public void localInfileRequested() {
            events.add(new Infile(written));
        }

        @Override
        public void backendLost(String reason, boolean midPacket, int nextSequenceId) {
            events.add(new Lost(reason, midPacket, nextSequenceId, written));
        }

        @Override
        public void queryTimedOut(String reason, boolean midPacket, int nextSequenceId) {
            events.add(new TimedOut(reason, midPacket, nextSequenceId));
        }

        /** Everything flushed to the client so far, its buffers released. */
        byte[] received() {
            ByteBuf all = alloc.heapBuffer();
            for (ByteBuf b = client.readOutbound(); b != null; b = client.readOutbound()) {
                all.writeBytes(b);
                b.release();
            }
            byte[] bytes = ByteBufUtil.getBytes(all);
            all.release();
            return bytes;
        }

        List<Completed> completions() {
            return events.stream()
                    .filter(Completed.class::isInstance)
                    .map(Completed.class::cast)
                    .toList();
        }
    }

    private final TrackingAllocator alloc = new TrackingAllocator();

    @AfterEach
    void everyBufferReleased() {
        for (ByteBuf b : alloc.allocated) {
            assertThat(b.refCnt())
                    .as("buffer of %d bytes released", b.capacity())
                    .isZero();
        }
    }

    private Target target;
    private BackendRelayHandler handler;
    private EmbeddedChannel backend;

    private void open(boolean deprecateEof) {
        open(deprecateEof, 0);
    }

    private void open(boolean deprecateEof, int queryTimeoutMillis) {
        target = new Target();
        handler = new BackendRelayHandler(target, deprecateEof, "hg20", queryTimeoutMillis);
        backend = new EmbeddedChannel();
        backend.config().setAllocator(alloc);
        handler.scanner().statusFlags(BEFORE);
        backend.pipeline().addLast(handler);
    }

    /** One read of the backend: a tracked buffer holding {@code bytes[from, to)}. */
    private void read(byte[] bytes, int from, int to) {
        ByteBuf buf = alloc.heapBuffer(to - from).writeBytes(bytes, from, to - from);
        assertThat(backend.writeInbound(buf)).as("nothing passes the relay").isFalse();
    }

    private void readInChunks(byte[] bytes, int[] chunks) {
        int at = 0;
        for (int n : chunks) {
            read(bytes, at, at + n);
            at += n;
        }
        assertThat(at).isEqualTo(bytes.length);
    }

    private void finish() {
        assertThat(target.received()).isEmpty();
        assertThat(backend.finish()).isFalse();
        assertThat(target.client.finish()).isFalse();
    }

    private static int[] randomChunks(Random random, int length, int maxChunk) {
        List<Integer> chunks = new ArrayList<>();
        for (int left = length; left > 0; ) {
            int n = Math.min(left, 1 + random.nextInt(maxChunk));
            chunks.add(n);
            left -= n;
        }
        return chunks.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Frame ends of {@code bytes}, and for each whether it ends a packet and its sequence id. */
    record Frame(int end, boolean endsPacket, int sequenceId) {}

    private static List<Frame> frames(byte[] bytes) {
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < bytes.length; ) {
            int length = (bytes[i] & 0xFF) | (bytes[i + 1] & 0xFF) << 8 | (bytes[i + 2] & 0xFF) << 16;
            i += 4 + length;
            frames.add(new Frame(i, length < MAX_FRAME, bytes[i - length - 1] & 0xFF));
        }
        return frames;
    }

    // ---- one response, read in pieces ----

    private void relaysOneResponse(Case c, boolean deprecateEof, int[] chunks, String as) {
        byte[] bytes = fixture(c.fixture(), deprecateEof);
        open(deprecateEof);
        handler.expect(c.response());
        readInChunks(bytes, chunks);
        assertThat(target.received()).as(as).isEqualTo(bytes);
        assertThat(target.completions())
                .as(as)
                .containsExactly(new Completed(1, c.status(deprecateEof), c.error(), bytes.length));
        long infile = target.events.stream().filter(Infile.class::isInstance).count();
        assertThat(infile).as(as).isEqualTo(c.fixture().equals("local-infile") ? 1 : 0);
        assertThat(handler.idle()).as(as).isTrue();
        assertThat(handler.statusFlags()).as(as).isEqualTo(c.status(deprecateEof));
        finish();
        everyBufferReleased();
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void relaysAResponseReadWhole(Case c, boolean deprecateEof) {
        int length = fixture(c.fixture(), deprecateEof).length;
        relaysOneResponse(c, deprecateEof, new int[] {length}, "whole");
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void relaysAResponseReadByteByByte(Case c, boolean deprecateEof) {
        int[] chunks = new int[fixture(c.fixture(), deprecateEof).length];
        Arrays.fill(chunks, 1);
        relaysOneResponse(c, deprecateEof, chunks, "byte by byte");
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void relaysAResponseSplitAtEveryPosition(Case c, boolean deprecateEof) {
        int length = fixture(c.fixture(), deprecateEof).length;
        for (int cut = 1; cut < length; cut++) {
            relaysOneResponse(c, deprecateEof, new int[] {cut, length - cut}, "cut at " + cut);
        }
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void relaysAResponseSplitAtRandomPositions(Case c, boolean deprecateEof) {
        int length = fixture(c.fixture(), deprecateEof).length;
        Random random = new Random(c.fixture().hashCode());
        for (int round = 0; round < 50; round++) {
            int[] chunks = randomChunks(random, length, 1 + random.nextInt(30));
            relaysOneResponse(c, deprecateEof, chunks, Arrays.toString(chunks));
        }
    }

    @Test
    void relaysRowBytesAsSlicesOfTheBufferRead() {
        byte[] bytes = fixture("text-rows-nulls", true);
        open(true);
        handler.expect(Response.RESULT_SET);
        int before = alloc.allocated.size();
        read(bytes, 0, bytes.length);
        // the one buffer the test allocated, nothing the relay allocated: a slice of it went on
        assertThat(alloc.allocated).hasSize(before + 1);
        ByteBuf out = target.client.readOutbound();
        assertThat(out.array()).isSameAs(alloc.allocated.get(before).array());
        assertThat(out.readableBytes()).isEqualTo(bytes.length);
        out.release();
        finish();
    }

    // ---- several responses, pipelined ----

    @ParameterizedTest(name = "deprecateEof={0}")
    @ValueSource(booleans = {true, false})
    void reportsPipelinedCompletionsAfterTheirBytesWereWritten(boolean deprecateEof) {
        List<Case> cases = CASES;
        byte[][] parts =
                cases.stream().map(c -> fixture(c.fixture(), deprecateEof)).toArray(byte[][]::new);
        byte[] bytes = concat(parts);
        int[] ends = new int[parts.length];
        for (int i = 0, at = 0; i < parts.length; i++) {
            at += parts[i].length;
            ends[i] = at;
        }
        Random random = new Random(7);
        for (int round = 0; round < 100; round++) {
            int[] chunks =
                    round == 0 ? new int[] {bytes.length} : randomChunks(random, bytes.length, 1 + random.nextInt(200));
            String as = Arrays.toString(chunks);
            open(deprecateEof);
            cases.forEach(c -> handler.expect(c.response()));
            int at = 0;
            int done = 0;
            int seen = 0;
            int[] statusAfter = new int[cases.size()];
            for (int i = 0, before = BEFORE; i < cases.size(); i++) {
                before = statusAfter[i] = cases.get(i).status(deprecateEof, before);
            }
            for (int n : chunks) {
                read(bytes, at, at + n);
                at += n;
                List<Completed> completions = target.completions();
                for (Completed e : completions.subList(seen, completions.size())) {
                    done += e.count();
                    Case last = cases.get(done - 1);
                    assertThat(e.status()).as(as).isEqualTo(statusAfter[done - 1]);
                    assertThat(e.error()).as(as).isEqualTo(last.error());
                    assertThat(e.written()).as("%s: bytes written first", as).isGreaterThanOrEqualTo(ends[done - 1]);
                }
                seen = completions.size();
                // every response whose last byte arrived is reported, and none other
                int upTo = at;
                int arrived =
                        (int) Arrays.stream(ends).filter(end -> end <= upTo).count();
                assertThat(done).as("%s: read up to %d", as, at).isEqualTo(arrived);
            }
            assertThat(target.received()).as(as).isEqualTo(bytes);
            assertThat(handler.idle()).isTrue();
            finish();
        }
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void relaysTheNextCommandSentFromTheCompletionCallback(Case c, boolean deprecateEof) {
        byte[] first = fixture(c.fixture(), deprecateEof);
        byte[] ping = fixture("ping", deprecateEof);
        byte[] bytes = concat(first, ping);
        for (int cut = 1; cut <= first.length; cut++) {
            open(deprecateEof);
            handler.expect(c.response());
            target.onComplete = t -> handler.expect(Response.SINGLE);
            read(bytes, 0, cut);
            read(bytes, cut, first.length);
            // the server answers the next command only once it was sent
            read(bytes, first.length, bytes.length);
            assertThat(target.completions())
                    .as("cut %d", cut)
                    .containsExactly(
                            new Completed(1, c.status(deprecateEof), c.error(), first.length),
                            new Completed(1, 0x0002, false, bytes.length));
            assertThat(target.received()).isEqualTo(bytes);
            finish();
        }
    }

    // ---- responses the router consumes ----

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ping", "init-db-err", "set-option-multi-off"})
    void deliversAnInternalResponseToTheRouterNotTheClient(String name) {
        for (boolean deprecateEof : new boolean[] {true, false}) {
            byte[] response = fixture(name, deprecateEof);
            byte[] next = fixture("text-rows-nulls", deprecateEof);
            byte[] bytes = concat(response, next);
            for (int cut = 1; cut <= response.length; cut++) {
                open(deprecateEof);
                handler.expectInternal(Response.SINGLE, backend);
                // the router relays the client's next command once its own is done
                target.onComplete = t -> handler.expect(Response.RESULT_SET);
                read(bytes, 0, cut);
                read(bytes, cut, response.length);
                read(bytes, response.length, bytes.length);
                assertThat(target.events)
                        .as("cut %d", cut)
                        .containsExactly(
                                new Internal(HexFormat.of().formatHex(response), name.endsWith("err"), 0),
                                new Completed(1, 0x0022, false, next.length));
                assertThat(target.received()).isEqualTo(next);
                finish();
            }
        }
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void relaysTheClientsResponseReadBehindABeginSentAheadOfIt(Case c, boolean deprecateEof) {
        // a pipelined BEGIN: its OK and the statement's response may come in any reads
        byte[] ok = fixture("ping", deprecateEof);
        byte[] response = fixture(c.fixture(), deprecateEof);
        byte[] bytes = concat(ok, response);
        for (int cut = 0; cut <= bytes.length; cut++) {
            open(deprecateEof);
            handler.expectInternal(Response.SINGLE, backend);
            handler.expect(c.response());
            read(bytes, 0, cut);
            read(bytes, cut, bytes.length);
            assertThat(target.events)
                    .as("cut %d", cut)
                    .filteredOn(e -> !(e instanceof Infile))
                    .containsExactly(
                            new Internal(HexFormat.of().formatHex(ok), false, 0),
                            new Completed(1, c.status(deprecateEof, 0x0002), c.error(), response.length));
            assertThat(target.received()).as("cut %d", cut).isEqualTo(response);
            assertThat(handler.idle()).isTrue();
            finish();
        }
    }

    @Test
    void givesTheConnectionUpWhenTheBeginSentAheadFails() {
        for (boolean deprecateEof : new boolean[] {true, false}) {
            byte[] err = fixture("init-db-err", deprecateEof);
            byte[] response = fixture("ok-insert", deprecateEof);
            byte[] bytes = concat(err, response);
            for (int cut = 0; cut <= bytes.length; cut++) {
                open(deprecateEof);
                handler.expectInternal(Response.SINGLE, backend);
                handler.expect(Response.RESULT_SET);
                target.onComplete = t -> handler.abort("the BEGIN failed");
                read(bytes, 0, cut);
                if (backend.isOpen()) {
                    read(bytes, cut, bytes.length);
                }
                assertThat(target.events)
                        .as("cut %d", cut)
                        .containsExactly(
                                new Internal(HexFormat.of().formatHex(err), true, 0),
                                new Lost("backend hg20: the BEGIN failed", false, 1, 0));
                assertThat(backend.isOpen()).isFalse();
                finish();
            }
        }
    }

    @Test
    void chainsInternalCommandsFromTheInternalResponseCallback() {
        // COM_CHANGE_USER's reset: COM_RESET_CONNECTION, COM_INIT_DB, SET NAMES, one after another
        byte[] ok = fixture("ping", true);
        for (int cut = 0; cut <= ok.length; cut++) {
            open(true);
            handler.expectInternal(Response.SINGLE, backend);
            target.onComplete = t -> {
                handler.expectInternal(Response.SINGLE, backend);
                t.onComplete = u -> handler.expectInternal(Response.SINGLE, backend);
            };
            for (int command = 0; command < 3; command++) {
                read(ok, 0, cut);
                read(ok, cut, ok.length);
            }
            String hex = HexFormat.of().formatHex(ok);
            assertThat(target.events)
                    .as("cut %d", cut)
                    .containsExactly(
                            new Internal(hex, false, 0), new Internal(hex, false, 0), new Internal(hex, false, 0));
            assertThat(handler.idle()).isTrue();
            finish();
        }
    }

    @Test
    void releasesAnUnfinishedInternalResponseWhenTheBackendCloses() {
        byte[] bytes = fixture("statistics", false);
        open(false);
        handler.expectInternal(Response.STATISTICS, backend);
        read(bytes, 0, 30);
        backend.close();
        assertThat(target.events).singleElement().isInstanceOf(Lost.class);
        finish();
    }

    // ---- the backend goes silent (server.query_timeout_millis) ----

    /** Lets {@code millis} pass in steps, as a running event loop would run each timer on time. */
    private void advance(long millis) {
        for (long step = 0; step < millis; step++) {
            backend.advanceTimeBy(1, java.util.concurrent.TimeUnit.MILLISECONDS);
            backend.runScheduledPendingTasks();
        }
    }

    @Test
    void closesABackendSilentForTheQueryTimeoutWhileAResponseIsOutstanding() {
        byte[] bytes = fixture("text-rows-nulls", true);
        int firstPacket = frames(bytes).get(0).end();
        open(true, 1000);
        backend.freezeTime();
        handler.expect(Response.RESULT_SET);
        read(bytes, 0, firstPacket);
        advance(999);
        assertThat(target.events).isEmpty();
        assertThat(backend.isOpen()).isTrue();
        advance(1);
        assertThat(target.events)
                .containsExactly(
                        new TimedOut("backend hg20 sent nothing for 1000 ms (server.query_timeout_millis)", false, 2));
        assertThat(backend.isOpen()).isFalse();
        assertThat(target.received()).hasSize(firstPacket);
        finish();
    }

    @Test
    void aBackendThatKeepsSendingOrHasNothingOutstandingNeverTimesOut() {
        byte[] bytes = fixture("text-rows-nulls", true);
        open(true, 1000);
        backend.freezeTime();
        handler.expect(Response.RESULT_SET);
        for (int at = 0; at < bytes.length; at++) {
            advance(600); // a slow result: never silent for the whole timeout
            read(bytes, at, at + 1);
        }
        advance(10_000); // idle (in the pool, or between statements): nothing to wait for
        assertThat(target.events).singleElement().isInstanceOf(Completed.class);
        assertThat(backend.isOpen()).isTrue();
        assertThat(target.received()).isEqualTo(bytes);
        finish();
    }

    @Test
    void aClientThatHoldsBackTheBackendsReadsIsNotTheBackendsSilence() {
        byte[] bytes = fixture("text-rows-nulls", true);
        open(true, 1000);
        backend.freezeTime();
        handler.expect(Response.RESULT_SET);
        backend.config().setAutoRead(false); // backpressure from a slow client
        advance(5000);
        assertThat(target.events).isEmpty();
        backend.config().setAutoRead(true);
        read(bytes, 0, bytes.length);
        assertThat(target.events).singleElement().isInstanceOf(Completed.class);
        assertThat(target.received()).isEqualTo(bytes);
        finish();
    }

    // ---- the backend goes away ----

    /**
     * Closes the backend after {@code cut} bytes of {@code bytes} and checks the report against
     * what the client got: whole packets only means an ERR can follow, with the next sequence id.
     */
    private void checkCloseAfter(byte[] bytes, int cut, Response response, boolean deprecateEof, int[] firstReads) {
        open(deprecateEof);
        handler.expect(response);
        int at = 0;
        for (int n : firstReads) {
            read(bytes, at, at + n);
            at += n;
        }
        read(bytes, at, cut);
        backend.close();
        byte[] got = target.received();
        assertThat(got).isEqualTo(Arrays.copyOf(bytes, got.length));
        List<Lost> lost = target.events.stream()
                .filter(Lost.class::isInstance)
                .map(Lost.class::cast)
                .toList();
        assertThat(lost).as("cut %d", cut).hasSize(1);
        boolean atPacketEnd =
                got.length == 0 || frames(bytes).stream().anyMatch(f -> f.end() == got.length && f.endsPacket());
        assertThat(lost.get(0).midPacket())
                .as("cut %d, client got %d", cut, got.length)
                .isEqualTo(!atPacketEnd);
        if (atPacketEnd) {
            int next = got.length == 0
                    ? 1
                    : frames(bytes).stream()
                                    .filter(f -> f.end() == got.length)
                                    .findFirst()
                                    .orElseThrow()
                                    .sequenceId()
                            + 1;
            assertThat(lost.get(0).nextSequenceId()).as("cut %d", cut).isEqualTo(next);
        }
        assertThat(lost.get(0).reason()).isEqualTo("backend hg20 closed the connection");
        assertThat(lost.get(0).written()).isEqualTo(got.length);
        finish();
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void reportsWhetherAPacketWasCutWhenTheBackendCloses(Case c, boolean deprecateEof) {
        byte[] bytes = fixture(c.fixture(), deprecateEof);
        for (int cut = 0; cut < bytes.length; cut++) {
            checkCloseAfter(bytes, cut, c.response(), deprecateEof, new int[0]);
            // the same bytes in two reads
            checkCloseAfter(bytes, cut, c.response(), deprecateEof, new int[] {cut / 2});
        }
    }

    /** Column count and definition recorded, then one row of {@code rowLength} bytes, framed. */
    private static byte[] bigRowResult(boolean deprecateEof, int rowLength) {
        byte[] head = fixture("query-while-cursor-open", deprecateEof);
        int headEnd = frames(head).get(deprecateEof ? 1 : 2).end();
        byte[] row = new byte[rowLength];
        Arrays.fill(row, (byte) 0xFE);
        row[0] = (byte) 0xFE; // a length-encoded string of 2^24 bytes or more
        long value = rowLength - 9;
        for (int i = 0; i < 8; i++) {
            row[1 + i] = (byte) (value >> (8 * i));
        }
        ByteBuf out = UnpooledByteBufAllocator.DEFAULT.heapBuffer();
        out.writeBytes(head, 0, headEnd);
        int seq = deprecateEof ? 3 : 4;
        for (int offset = 0; ; ) {
            int n = Math.min(MAX_FRAME, rowLength - offset);
            out.writeMediumLE(n).writeByte(seq++).writeBytes(row, offset, n);
            offset += n;
            if (n < MAX_FRAME) {
                break;
            }
        }
        byte[] terminator =
                deprecateEof ? new byte[] {(byte) 0xFE, 0, 0, 0x22, 0, 0, 0} : new byte[] {(byte) 0xFE, 0, 0, 0x22, 0};
        out.writeMediumLE(terminator.length).writeByte(seq).writeBytes(terminator);
        byte[] bytes = ByteBufUtil.getBytes(out);
        out.release();
        return bytes;
    }

    @ParameterizedTest(name = "deprecateEof={0}")
    @ValueSource(booleans = {true, false})
    void reportsACutWhenOnlyTheFirstFrameOfA16MiBPacketArrived(boolean deprecateEof) {
        byte[] bytes = bigRowResult(deprecateEof, MAX_FRAME + 10);
        List<Frame> frames = frames(bytes);
        int rowStart = frames.get(deprecateEof ? 1 : 2).end();
        int firstFrameEnd = rowStart + 4 + MAX_FRAME;
        assertThat(frames).anyMatch(f -> f.end() == firstFrameEnd && !f.endsPacket());
        int[] cuts = {
            rowStart + 5, firstFrameEnd - 1, firstFrameEnd, firstFrameEnd + 2, firstFrameEnd + 4, firstFrameEnd + 14
        };
        for (int cut : cuts) {
            checkCloseAfter(bytes, cut, Response.RESULT_SET, deprecateEof, new int[] {rowStart + 1});
        }
    }

    @ParameterizedTest(name = "deprecateEof={0}")
    @ValueSource(booleans = {true, false})
    void relaysA16MiBRowIn64KiBReads(boolean deprecateEof) {
        byte[] bytes = bigRowResult(deprecateEof, 2 * MAX_FRAME + 3);
        int[] chunks = new int[(bytes.length + 65535) / 65536];
        Arrays.fill(chunks, 65536);
        chunks[chunks.length - 1] = bytes.length - 65536 * (chunks.length - 1);
        open(deprecateEof);
        handler.expect(Response.RESULT_SET);
        int at = 0;
        for (int n : chunks) {
            read(bytes, at, at + n);
            at += n;
            // rows stream through: all but a frame header's few bytes reach the client per read
            byte[] got = target.received();
            assertThat(got.length).isGreaterThanOrEqualTo(n - 11);
        }
        assertThat(target.completions()).containsExactly(new Completed(1, 0x0022, false, bytes.length));
        finish();
    }

    @Test
    void reportsTheNextCommandsFirstSequenceIdWhenTheBackendClosesBeforeAnswering() {
        byte[] bytes = fixture("text-rows-nulls", true);
        open(true);
        handler.expect(Response.RESULT_SET);
        read(bytes, 0, bytes.length);
        handler.expect(Response.SINGLE);
        backend.close();
        assertThat(target.events.get(target.events.size() - 1))
                .isEqualTo(new Lost("backend hg20 closed the connection", false, 1, bytes.length));
        assertThat(target.received()).isEqualTo(bytes);
        finish();
    }

    @Test
    void closesQuietlyWhenTheRouterClosesTheBackend() {
        byte[] bytes = fixture("text-rows-nulls", false);
        open(false);
        handler.expect(Response.RESULT_SET);
        read(bytes, 0, 40); // a column definition streams through
        read(bytes, 40, 52); // its end, and half the next frame header: held
        handler.closeQuietly(backend);
        assertThat(target.events).isEmpty();
        assertThat(target.received()).isEqualTo(Arrays.copyOf(bytes, 50));
        finish();
    }

    @ParameterizedTest(name = "deprecateEof={0}")
    @ValueSource(booleans = {true, false})
    void closesTheBackendOnBytesNobodyExpected(boolean deprecateEof) {
        byte[] ok = fixture("ok-insert", deprecateEof);
        byte[] bytes = concat(ok, fixture("ping", deprecateEof));
        open(deprecateEof);
        handler.expect(Response.RESULT_SET);
        read(bytes, 0, ok.length);
        read(bytes, ok.length, bytes.length);
        assertThat(backend.isActive()).isFalse();
        assertThat(target.events).hasSize(2);
        assertThat(target.events.get(0)).isEqualTo(new Completed(1, 0x0002, false, ok.length));
        Lost lost = (Lost) target.events.get(1);
        assertThat(lost.reason()).startsWith("backend hg20: server sent a packet while no response was expected");
        assertThat(lost.midPacket()).isFalse();
        assertThat(target.received()).isEqualTo(ok);
        finish();
    }

    @Test
    void closesTheBackendOnAnException() {
        byte[] bytes = fixture("text-rows-nulls", true);
        open(true);
        handler.expect(Response.RESULT_SET);
        read(bytes, 0, 20);
        backend.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        assertThat(backend.isActive()).isFalse();
        Lost lost = (Lost) target.events.get(0);
        assertThat(target.events).hasSize(1);
        assertThat(lost.reason()).isEqualTo("backend hg20: Connection reset by peer");
        assertThat(lost.midPacket()).isTrue();
        assertThat(target.received()).isEqualTo(Arrays.copyOf(bytes, 20));
        finish();
    }
}
