package io.shardgate.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.codec.ResponseScanner.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Responses recorded from a real MariaDB 10.11 ({@code src/test/resources/responses/record.py}),
 * each recorded twice: with CLIENT_DEPRECATE_EOF ({@code *.deprecate-eof.hex}) and without
 * ({@code *.eof.hex}). Each fixture is the whole answer to one command, so its one completion
 * belongs exactly at its last byte.
 */
class ResponseScannerTest {
    /** Status flags before a response (IN_TRANS | AUTOCOMMIT): no recorded packet carries them. */
    private static final int BEFORE = 0x0003;
    /** The response carries no status flags of its own: they stay those seen before it. */
    private static final int KEEP = -1;

    private static final int MAX_FRAME = 0xFFFFFF;

    /**
     * One recorded response and what it must complete with, per capability mode.
     *
     * @param eofStatus final status flags without CLIENT_DEPRECATE_EOF, or {@link #KEEP}
     * @param deprecateEofStatus final status flags with CLIENT_DEPRECATE_EOF, or {@link #KEEP}
     */
    record Case(
            String fixture,
            Response response,
            int eofStatus,
            int deprecateEofStatus,
            boolean error,
            boolean localInfile) {
        Case(String fixture, Response response, int eofStatus, int deprecateEofStatus, boolean error) {
            this(fixture, response, eofStatus, deprecateEofStatus, error, false);
        }

        int status(boolean deprecateEof) {
            return deprecateEof ? deprecateEofStatus : eofStatus;
        }
    }

    private static final List<Case> CASES = List.of(
            new Case("ok-insert", Response.RESULT_SET, 0x0002, 0x0002, false),
            new Case("err-no-table", Response.RESULT_SET, KEEP, KEEP, true),
            // the 4th row starts with 0xFB (NULL), which is not a terminator
            new Case("text-rows-nulls", Response.RESULT_SET, 0x0022, 0x0022, false),
            new Case("text-zero-rows", Response.RESULT_SET, 0x0002, 0x0002, false),
            // the first result's terminator has SERVER_MORE_RESULTS_EXISTS (0x000a)
            new Case("multi-statement", Response.RESULT_SET, 0x0002, 0x0002, false),
            // two result sets (0x002a), then the CALL's own OK
            new Case("call-two-results", Response.RESULT_SET, 0x0022, 0x0022, false),
            // three rows, then ERR 1644; without DEPRECATE_EOF the column EOF said 0x0022
            new Case("error-mid-rows", Response.RESULT_SET, 0x0022, KEEP, true),
            new Case("local-infile", Response.RESULT_SET, 0x0002, 0x0002, false, true),
            new Case("field-list", Response.FIELD_LIST, 0x0002, 0x0002, false),
            new Case("statistics", Response.STATISTICS, KEEP, KEEP, false),
            new Case("ping", Response.SINGLE, 0x0002, 0x0002, false),
            // an EOF packet, or with DEPRECATE_EOF an OK packet with the 0xFE header
            new Case("set-option-multi-off", Response.SINGLE, 0x0002, 0x0002, false),
            new Case("init-db-err", Response.SINGLE, KEEP, KEEP, true),
            // with DEPRECATE_EOF the last column definition ends the response
            new Case("prepare-params-columns", Response.PREPARE, 0x0002, KEEP, false),
            // with DEPRECATE_EOF the last parameter definition ends the response
            new Case("prepare-params-only", Response.PREPARE, 0x0002, KEEP, false),
            new Case("prepare-neither", Response.PREPARE, KEEP, KEEP, false),
            new Case("prepare-err", Response.PREPARE, KEEP, KEEP, true),
            new Case("execute-binary-rows", Response.RESULT_SET, 0x0002, 0x0002, false),
            new Case("execute-update-ok", Response.RESULT_SET, 0x0002, 0x0002, false),
            // column definitions, then EOF (or OK) with SERVER_STATUS_CURSOR_EXISTS: no rows
            new Case("execute-cursor-open", Response.RESULT_SET_OR_CURSOR, 0x0042, 0x0042, false),
            new Case("fetch-two-rows", Response.ROWS, 0x0042, 0x0042, false),
            // SERVER_STATUS_LAST_ROW_SENT
            new Case("fetch-last-rows", Response.ROWS, 0x0082, 0x0082, false),
            new Case("fetch-err", Response.ROWS, KEEP, KEEP, true),
            new Case("execute-cursor-open-again", Response.RESULT_SET_OR_CURSOR, 0x0042, 0x0042, false),
            new Case("query-while-cursor-open", Response.RESULT_SET, 0x0002, 0x0002, false),
            // issue 23 (MariaDB 11.4): a SELECT per FETCH of the procedure's own cursor; each result
            // set's EOF says SERVER_STATUS_CURSOR_EXISTS | SERVER_MORE_RESULTS_EXISTS (0x006a) and
            // its rows follow
            new Case("call-cursor-loop", Response.RESULT_SET, 0x0022, 0x0022, false),
            // asked for a cursor, a CALL gets none: its results come inline, as above
            new Case("execute-call-cursor-flag", Response.RESULT_SET_OR_CURSOR, 0x0022, 0x0022, false),
            // the ERR ends the CALL: no more results, and the procedure's cursor is gone (0x006a -> 0x0022)
            new Case("call-cursor-then-error", Response.RESULT_SET, 0x0022, 0x0022, true),
            new Case("call-error-after", Response.RESULT_SET, 0x0002, 0x0002, true),
            // the handler's result set, the procedure's own, then the CALL's OK
            new Case("call-handler", Response.RESULT_SET, 0x0002, 0x0002, false),
            // binary rows, a zero-row result set, the OUT parameters (SERVER_PS_OUT_PARAMS, 0x100a), OK
            new Case("execute-call-out-params", Response.RESULT_SET, 0x0002, 0x0002, false),
            // result set, the OK of DO (with SERVER_MORE_RESULTS_EXISTS), result set
            new Case("multi-ok-between", Response.RESULT_SET, 0x0002, 0x0002, false));

    static Stream<Arguments> cases() {
        return Stream.of(true, false).flatMap(deprecateEof -> CASES.stream().map(c -> Arguments.of(c, deprecateEof)));
    }

    static byte[] fixture(String name, boolean deprecateEof) {
        String path = "/responses/" + name + (deprecateEof ? ".deprecate-eof" : ".eof") + ".hex";
        try (InputStream in = ResponseScannerTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            StringBuilder hex = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (!line.startsWith("#")) {
                    hex.append(line.strip());
                }
            }
            return HexFormat.of().parseHex(hex);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One response of a stream: where its last byte is and what it must complete with. */
    record Expected(Response response, int end, int status, boolean error) {}

    /** The fixtures back to back, as pipelined commands would be answered. */
    record Stream2(byte[] bytes, List<Expected> expected, int localInfile) {}

    private static Stream2 pipeline(List<Case> cases, boolean deprecateEof) {
        List<Expected> expected = new ArrayList<>();
        byte[] all = new byte[0];
        int status = BEFORE;
        int infile = 0;
        for (Case c : cases) {
            byte[] b = fixture(c.fixture(), deprecateEof);
            all = Arrays.copyOf(all, all.length + b.length);
            System.arraycopy(b, 0, all, all.length - b.length, b.length);
            if (c.status(deprecateEof) != KEEP) {
                status = c.status(deprecateEof);
            }
            expected.add(new Expected(c.response(), all.length, status, c.error()));
            infile += c.localInfile() ? 1 : 0;
        }
        return new Stream2(all, expected, infile);
    }

    /** A completion as the listener saw it. */
    record Completion(int status, boolean error, long offered) {}

    /**
     * Plays the caller's part as {@code BackendRelayHandler} does: bytes the scanner did not
     * release are offered again, in front of the next read. Checks on every read that what may
     * be forwarded continues the input exactly.
     */
    static final class Feeder implements ResponseScanner.Listener {
        final ResponseScanner scanner;
        final ByteBuf input;
        final List<Completion> completions = new ArrayList<>();
        /** For each completion: bytes forwardable after the read it happened in. */
        final List<Long> forwardedAtCompletion = new ArrayList<>();

        int localInfile;
        long offered;
        long forwarded;
        int maxHeld;
        private byte[] held = new byte[0];

        Feeder(boolean deprecateEof, ByteBuf input) {
            this.scanner = new ResponseScanner(deprecateEof, this);
            this.input = input;
            scanner.statusFlags(BEFORE);
        }

        Feeder(boolean deprecateEof, byte[] input) {
            this(deprecateEof, Unpooled.wrappedBuffer(input));
        }

        /** Offers the next {@code n} input bytes, behind whatever was held back. */
        void feed(int n) {
            ByteBuf chunk = input.slice((int) offered, n);
            ByteBuf in = held.length == 0 ? chunk : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(held), chunk);
            offered += n;
            int before = completions.size();
            int reader = in.readerIndex();
            int writer = in.writerIndex();
            int upTo = scanner.scan(in);
            assertThat(in.readerIndex()).as("reader index moved").isEqualTo(reader);
            assertThat(in.writerIndex()).as("writer index moved").isEqualTo(writer);
            assertThat(upTo).isBetween(reader, writer);
            // what may be forwarded is the held bytes, then the chunk (a slice of the input at
            // offered - n): it continues the input when both parts sit where they belong
            int n0 = upTo - reader;
            int fromHeld = Math.min(n0, held.length);
            assertThat(ByteBufUtil.equals(
                            Unpooled.wrappedBuffer(held, 0, fromHeld), input.slice((int) forwarded, fromHeld)))
                    .as("forwarded held bytes continue the input at %d", forwarded)
                    .isTrue();
            if (n0 > fromHeld) {
                assertThat(offered - n)
                        .as("forwarded read bytes continue the input")
                        .isEqualTo(forwarded + fromHeld);
            }
            forwarded += n0;
            held = new byte[writer - upTo];
            in.getBytes(upTo, held);
            maxHeld = Math.max(maxHeld, held.length);
            for (int i = before; i < completions.size(); i++) {
                forwardedAtCompletion.add(forwarded);
            }
        }

        void feedAll(int[] chunkSizes) {
            for (int n : chunkSizes) {
                feed(n);
            }
        }

        @Override
        public void responseComplete(int statusFlags, boolean error) {
            completions.add(new Completion(statusFlags, error, offered));
        }

        @Override
        public void localInfileRequested() {
            localInfile++;
        }
    }

    /**
     * Feeds {@code stream} in chunks of the given sizes and checks every completion: in order,
     * with its status, reported by the first read that brought its last byte, and only once
     * every byte of it may be forwarded.
     */
    private static void check(Stream2 stream, boolean deprecateEof, int[] chunks, String as) {
        Feeder f = new Feeder(deprecateEof, stream.bytes());
        for (Expected e : stream.expected()) {
            f.scanner.expect(e.response());
        }
        f.feedAll(chunks);
        assertThat(f.offered).as(as).isEqualTo(stream.bytes().length);
        assertThat(f.forwarded).as("%s: everything forwarded", as).isEqualTo(stream.bytes().length);
        assertThat(f.completions).as(as).hasSameSizeAs(stream.expected());
        long[] boundaries = new long[chunks.length];
        long sum = 0;
        for (int i = 0; i < chunks.length; i++) {
            sum += chunks[i];
            boundaries[i] = sum;
        }
        for (int k = 0; k < stream.expected().size(); k++) {
            Expected e = stream.expected().get(k);
            Completion c = f.completions.get(k);
            long readWithLastByte = Arrays.stream(boundaries)
                    .filter(b -> b >= e.end())
                    .findFirst()
                    .orElseThrow();
            assertThat(c)
                    .as("%s: response %d (%s, ends at %d)", as, k, e.response(), e.end())
                    .isEqualTo(new Completion(e.status(), e.error(), readWithLastByte));
            assertThat(f.forwardedAtCompletion.get(k))
                    .as("%s: response %d forwardable when reported", as, k)
                    .isGreaterThanOrEqualTo(e.end());
        }
        assertThat(f.localInfile).as(as).isEqualTo(stream.localInfile());
        assertThat(f.scanner.idle()).as(as).isTrue();
        assertThat(f.scanner.statusFlags())
                .as(as)
                .isEqualTo(stream.expected().get(stream.expected().size() - 1).status());
    }

    private static int[] whole(byte[] b) {
        return new int[] {b.length};
    }

    private static int[] byteByByte(byte[] b) {
        int[] chunks = new int[b.length];
        Arrays.fill(chunks, 1);
        return chunks;
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

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void completesOnceWhenFedWhole(Case c, boolean deprecateEof) {
        Stream2 s = pipeline(List.of(c), deprecateEof);
        check(s, deprecateEof, whole(s.bytes()), c.fixture());
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void completesOnItsLastByteWhenFedByteByByte(Case c, boolean deprecateEof) {
        Stream2 s = pipeline(List.of(c), deprecateEof);
        check(s, deprecateEof, byteByByte(s.bytes()), c.fixture());
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void completesWithTheSecondReadWhenSplitAtEveryPosition(Case c, boolean deprecateEof) {
        Stream2 s = pipeline(List.of(c), deprecateEof);
        for (int cut = 0; cut <= s.bytes().length; cut++) {
            check(s, deprecateEof, new int[] {cut, s.bytes().length - cut}, c.fixture() + " cut at " + cut);
        }
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void completesWhenSplitAtRandomPositions(Case c, boolean deprecateEof) {
        Stream2 s = pipeline(List.of(c), deprecateEof);
        Random random = new Random(c.fixture().hashCode());
        for (int round = 0; round < 200; round++) {
            int[] chunks = randomChunks(random, s.bytes().length, 1 + random.nextInt(40));
            check(s, deprecateEof, chunks, c.fixture() + " chunks " + Arrays.toString(chunks));
        }
    }

    @ParameterizedTest(name = "deprecateEof={0}")
    @ValueSource(booleans = {true, false})
    void completesPipelinedResponsesInOrder(boolean deprecateEof) {
        Stream2 s = pipeline(CASES, deprecateEof);
        check(s, deprecateEof, whole(s.bytes()), "whole");
        check(s, deprecateEof, byteByByte(s.bytes()), "byte by byte");
        Random random = new Random(42);
        for (int round = 0; round < 300; round++) {
            int[] chunks = randomChunks(random, s.bytes().length, 1 + random.nextInt(300));
            check(s, deprecateEof, chunks, "chunks " + Arrays.toString(chunks));
        }
    }

    @ParameterizedTest(name = "deprecateEof={0}")
    @ValueSource(booleans = {true, false})
    void completesPipelinedResponsesSplitAtEveryPosition(boolean deprecateEof) {
        // a response ending inside a read, the next one starting in it: every boundary case
        Stream2 s = pipeline(
                List.of(CASES.get(13), CASES.get(14), CASES.get(6), CASES.get(10), CASES.get(19), CASES.get(20)),
                deprecateEof);
        for (int a = 0; a <= s.bytes().length; a += 3) {
            for (int b = a; b <= s.bytes().length; b += 7) {
                check(s, deprecateEof, new int[] {a, b - a, s.bytes().length - b}, "cuts at " + a + ", " + b);
            }
        }
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void rejectsAResponseNobodyExpected(Case c, boolean deprecateEof) {
        byte[] bytes = fixture(c.fixture(), deprecateEof);
        Feeder f = new Feeder(deprecateEof, bytes);
        assertThatThrownBy(() -> f.feed(bytes.length)).isInstanceOf(UnexpectedResponseException.class);
        assertThat(f.completions).isEmpty();
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void rejectsBytesAfterTheLastExpectedResponse(Case c, boolean deprecateEof) {
        Stream2 one = pipeline(List.of(c), deprecateEof);
        byte[] ping = fixture("ping", deprecateEof);
        byte[] bytes = Arrays.copyOf(one.bytes(), one.bytes().length + ping.length);
        System.arraycopy(ping, 0, bytes, one.bytes().length, ping.length);
        Feeder f = new Feeder(deprecateEof, bytes);
        f.scanner.expect(c.response());
        f.feed(one.bytes().length - 1);
        assertThat(f.completions).isEmpty();
        assertThatThrownBy(() -> f.feed(ping.length + 1)).isInstanceOf(UnexpectedResponseException.class);
        assertThat(f.completions).hasSize(1);
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("cases")
    void startsAResponseExpectedOnlyAfterThePreviousOneCompleted(Case c, boolean deprecateEof) {
        // the router sends its next command once it hears of the completion; at every split
        byte[] first = fixture(c.fixture(), deprecateEof);
        byte[] ping = fixture("ping", deprecateEof);
        byte[] bytes = Arrays.copyOf(first, first.length + ping.length);
        System.arraycopy(ping, 0, bytes, first.length, ping.length);
        for (int cut = 1; cut <= first.length; cut++) {
            Feeder f = new Feeder(deprecateEof, bytes);
            f.scanner.expect(c.response());
            f.feed(cut);
            boolean sent = f.completions.size() == 1;
            if (sent) {
                f.scanner.expect(Response.SINGLE);
            }
            f.feed(first.length - cut);
            assertThat(f.completions).as("cut %d", cut).hasSize(1);
            if (!sent) {
                f.scanner.expect(Response.SINGLE);
            }
            f.feed(ping.length);
            assertThat(f.completions).as("cut %d", cut).hasSize(2);
            assertThat(f.completions.get(1)).isEqualTo(new Completion(0x0002, false, bytes.length));
            assertThat(f.forwarded).isEqualTo(bytes.length);
            assertThat(f.scanner.idle()).isTrue();
        }
    }

    @Test
    void startsAResponseExpectedFromInsideTheCompletionCallback() {
        byte[] prepare = fixture("prepare-params-columns", true);
        byte[] ping = fixture("ping", true);
        byte[] bytes = Arrays.copyOf(prepare, prepare.length + ping.length);
        System.arraycopy(ping, 0, bytes, prepare.length, ping.length);
        List<Integer> statuses = new ArrayList<>();
        ResponseScanner[] scanner = new ResponseScanner[1];
        scanner[0] = new ResponseScanner(true, (status, error) -> {
            statuses.add(status);
            if (statuses.size() == 1) {
                scanner[0].expect(Response.SINGLE);
            }
        });
        scanner[0].expect(Response.PREPARE);
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        assertThat(scanner[0].scan(in)).isEqualTo(bytes.length);
        assertThat(statuses).containsExactly(0, 0x0002);
        assertThat(scanner[0].idle()).isTrue();
    }

    @Test
    void holdsBackOnlyAnIncompleteHeaderOrStatePacket() {
        byte[] rows = fixture("text-rows-nulls", false);
        Feeder f = new Feeder(false, rows);
        f.scanner.expect(Response.RESULT_SET);
        f.feed(2); // half a frame header
        assertThat(f.forwarded).isZero();
        f.feed(3); // the column count packet, whole: forwarded
        assertThat(f.forwarded).isEqualTo(5);
        f.feed(10); // a column definition's header and first bytes: they stream through
        assertThat(f.forwarded).isEqualTo(15);
    }

    @Test
    void pausesAfterEachResponseWhileAskedTo() {
        // the router's own command's response, then the client's, read together
        byte[] ok = ByteBufUtil.decodeHexDump("07000001" + "00" + "00" + "00" + "0300" + "0000");
        byte[] rows = fixture("text-rows-nulls", true);
        byte[] both = new byte[ok.length + rows.length];
        System.arraycopy(ok, 0, both, 0, ok.length);
        System.arraycopy(rows, 0, both, ok.length, rows.length);
        int[] completions = {0};
        ResponseScanner scanner = new ResponseScanner(true, (status, error) -> completions[0]++);
        scanner.pauseAfterResponse(true);
        scanner.expect(Response.SINGLE);
        scanner.expect(Response.RESULT_SET);
        ByteBuf in = Unpooled.wrappedBuffer(both);
        assertThat(scanner.scan(in)).as("stops after the OK").isEqualTo(ok.length);
        assertThat(completions[0]).isEqualTo(1);
        assertThat(scanner.statusFlags()).isEqualTo(0x0003);
        scanner.pauseAfterResponse(false);
        in.readerIndex(ok.length);
        assertThat(scanner.scan(in)).isEqualTo(both.length);
        assertThat(completions[0]).isEqualTo(2);
        assertThat(scanner.idle()).isTrue();
    }

    @Test
    void aPauseAtTheEndOfARead() {
        byte[] ok = ByteBufUtil.decodeHexDump("07000001" + "00" + "00" + "00" + "0300" + "0000");
        ResponseScanner scanner = new ResponseScanner(true, (status, error) -> {});
        scanner.pauseAfterResponse(true);
        scanner.expect(Response.SINGLE);
        scanner.expect(Response.SINGLE);
        assertThat(scanner.scan(Unpooled.wrappedBuffer(ok))).isEqualTo(ok.length);
        assertThat(scanner.scan(Unpooled.wrappedBuffer(ok)))
                .as("the next read starts the next response")
                .isEqualTo(ok.length);
        assertThat(scanner.idle()).isTrue();
    }

    @Test
    void remembersTheInsertIdOfTheOkEndingAStatement() {
        ResponseScanner scanner = new ResponseScanner(true, (status, error) -> {});
        scanner.expect(Response.RESULT_SET);
        // OK: 1 row affected, insert id 300 (0xFC + 2 bytes), status 0x0002, no warnings
        byte[] ok = ByteBufUtil.decodeHexDump("09000001" + "00" + "01" + "fc2c01" + "0200" + "0000");
        assertThat(scanner.scan(Unpooled.wrappedBuffer(ok))).isEqualTo(ok.length);
        assertThat(scanner.insertId()).isEqualTo(300);
        assertThat(scanner.affectedRows()).isEqualTo(1);
        assertThat(scanner.rows()).isZero();
        assertThat(scanner.statusFlags()).isEqualTo(0x0002);
        scanner.expect(Response.RESULT_SET);
        assertThat(scanner.insertId()).as("a new response starts without one").isZero();
        assertThat(scanner.affectedRows()).isZero();
        scanner.scan(
                Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("07000001" + "00" + "00" + "00" + "0200" + "0000")));
        assertThat(scanner.insertId()).isZero();
    }

    @Test
    void countsTheRowsOfAResultSet() {
        ResponseScanner scanner = new ResponseScanner(true, (status, error) -> {});
        scanner.expect(Response.RESULT_SET);
        byte[] result = ByteBufUtil.decodeHexDump(
                "0100000101" // one column
                        + "0400000203646566" // its definition (abridged: the scanner skips it by length)
                        + "020000030161" // row 'a'
                        + "020000040162" // row 'b'
                        + "07000005fe000002000000"); // OK with the 0xFE header: end of rows
        assertThat(scanner.scan(Unpooled.wrappedBuffer(result))).isEqualTo(result.length);
        assertThat(scanner.idle()).isTrue();
        assertThat(scanner.rows()).isEqualTo(2);
        assertThat(scanner.affectedRows()).isZero();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void relaysEveryRowOfAProcedureSelectingInsideItsCursorLoop(boolean deprecateEof) {
        // issue 23: the scanner used to end the response at the first result set's column EOF
        // (SERVER_STATUS_CURSOR_EXISTS) and then met the rows as bytes nobody expected
        for (Response response : List.of(Response.RESULT_SET, Response.RESULT_SET_OR_CURSOR)) {
            ResponseScanner scanner = new ResponseScanner(deprecateEof, (status, error) -> {});
            scanner.expect(response);
            byte[] bytes = fixture(
                    response == Response.RESULT_SET ? "call-cursor-loop" : "execute-call-cursor-flag", deprecateEof);
            assertThat(scanner.scan(Unpooled.wrappedBuffer(bytes))).isEqualTo(bytes.length);
            assertThat(scanner.idle()).isTrue();
            assertThat(scanner.rows()).as("one row per FETCH").isEqualTo(3);
        }
    }

    @Test
    void onlyAnExecutionAskingForACursorGetsOneAndOnlyAsItsSingleResult() {
        int cursor = 0x0040;
        int more = 0x0008;
        assertThat(ResponseScanner.opensCursor(Response.RESULT_SET_OR_CURSOR, cursor | 0x0002))
                .isTrue();
        assertThat(ResponseScanner.opensCursor(Response.RESULT_SET_OR_CURSOR, cursor | more | 0x0002))
                .as("a procedure's result set while its cursor is open")
                .isFalse();
        assertThat(ResponseScanner.opensCursor(Response.RESULT_SET, cursor | 0x0002))
                .as("COM_QUERY never opens a cursor")
                .isFalse();
        assertThat(ResponseScanner.opensCursor(Response.RESULT_SET_OR_CURSOR, 0x0002))
                .isFalse();
    }

    @Test
    void anErrorEndingAResultKeepsOnlyACursorOpenedBeforeIt() {
        assertThat(ResponseScanner.statusAfterError(0x0002, 0x006a)).isEqualTo(0x0022);
        assertThat(ResponseScanner.statusAfterError(0x0042, 0x000a)).isEqualTo(0x0042);
        assertThat(ResponseScanner.statusAfterError(0x0002, 0x0003)).isEqualTo(0x0003);
    }

    @Test
    void remembersTheWarningCountOfThePacketEndingTheLastResult() {
        ResponseScanner eof = new ResponseScanner(false, (status, error) -> {});
        eof.expect(Response.RESULT_SET);
        byte[] result = ByteBufUtil.decodeHexDump(
                "0100000101" // one column
                        + "0400000203646566" // its definition (abridged)
                        + "05000003fe00000200" // EOF after the definitions
                        + "020000040161" // row 'a'
                        + "05000005fe01000200"); // EOF: 1 warning
        eof.scan(Unpooled.wrappedBuffer(result));
        assertThat(eof.idle()).isTrue();
        assertThat(eof.warnings()).isEqualTo(1);

        ResponseScanner ok = new ResponseScanner(true, (status, error) -> {});
        ok.expect(Response.RESULT_SET);
        // OK: 0 rows affected, no insert id, status 0x0002, 3 warnings
        ok.scan(Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("07000001" + "00" + "00" + "00" + "0200" + "0300")));
        assertThat(ok.warnings()).isEqualTo(3);
        ok.expect(Response.RESULT_SET);
        ok.scan(Unpooled.wrappedBuffer(fixture("err-no-table", true)));
        assertThat(ok.warnings())
                .as("an ERR ends the response: its statement failed")
                .isZero();
    }

    @Test
    void idleScannerHasNothingOutstanding() {
        ResponseScanner scanner = new ResponseScanner(true, (status, error) -> {});
        assertThat(scanner.idle()).isTrue();
        scanner.expect(Response.SINGLE);
        assertThat(scanner.idle()).isFalse();
        assertThat(scanner.scan(Unpooled.wrappedBuffer(fixture("ping", true)))).isEqualTo(11);
        assertThat(scanner.idle()).isTrue();
        assertThat(scanner.statusFlags()).isEqualTo(0x0002);
    }

    // ---- packets of 16 MiB and more: synthesized, with real column definitions around them ----

    /** Frames {@code payload} as the server does: 0xFFFFFF-byte frames, then a shorter one. */
    private static ByteBuf frame(ByteBuf out, int sequenceId, byte[] payload) {
        int offset = 0;
        int seq = sequenceId;
        while (true) {
            int n = Math.min(MAX_FRAME, payload.length - offset);
            out.writeMediumLE(n).writeByte(seq++ & 0xFF).writeBytes(payload, offset, n);
            offset += n;
            if (n < MAX_FRAME) {
                return out;
            }
        }
    }

    /**
     * A binary result set of one column (its definition recorded) whose rows are {@code lengths}
     * long, framed. Row data bytes are {@code fill}, so a continuation frame starts with it.
     */
    private static byte[] bigBinaryResult(boolean deprecateEof, byte fill, int... lengths) {
        byte[] head = fixture("query-while-cursor-open", deprecateEof);
        // column count and the one column definition of the recording; then our rows
        int headEnd = 0;
        for (int frames = 0; frames < (deprecateEof ? 2 : 3); frames++) {
            headEnd += 4 + (head[headEnd] & 0xFF);
        }
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(head, 0, headEnd);
        int seq = deprecateEof ? 3 : 4;
        for (int length : lengths) {
            // binary row: 0x00, NULL bitmap of one byte, then the value as a length-encoded string
            byte[] row = new byte[length];
            Arrays.fill(row, fill);
            row[0] = 0;
            row[1] = 0;
            int value = length - 2;
            if (value < 1 << 24) {
                row[2] = (byte) 0xFD;
                row[3] = (byte) (value - 4);
                row[4] = (byte) ((value - 4) >> 8);
                row[5] = (byte) ((value - 4) >> 16);
            } else {
                row[2] = (byte) 0xFE;
                for (int i = 0; i < 8; i++) {
                    row[3 + i] = (byte) ((long) (value - 9) >> (8 * i));
                }
            }
            frame(out, seq, row);
            seq += 1 + length / MAX_FRAME;
        }
        frame(
                out,
                seq,
                deprecateEof ? new byte[] {(byte) 0xFE, 0, 0, 0x22, 0, 0, 0} : new byte[] {(byte) 0xFE, 0, 0, 0x22, 0});
        byte[] bytes = ByteBufUtil.getBytes(out);
        out.release();
        return bytes;
    }

    /**
     * A text result set of one column whose single row is one value of {@code valueLength} bytes
     * of {@code fill}: 0xFE and an 8-byte length in front when it is 16 MiB or more.
     */
    private static byte[] bigTextResult(boolean deprecateEof, byte fill, int valueLength) {
        byte[] head = fixture("query-while-cursor-open", deprecateEof);
        int headEnd = 0;
        for (int frames = 0; frames < (deprecateEof ? 2 : 3); frames++) {
            headEnd += 4 + (head[headEnd] & 0xFF);
        }
        byte[] row = new byte[9 + valueLength];
        Arrays.fill(row, fill);
        row[0] = (byte) 0xFE;
        for (int i = 0; i < 8; i++) {
            row[1 + i] = (byte) ((long) valueLength >> (8 * i));
        }
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(head, 0, headEnd);
        frame(out, deprecateEof ? 3 : 4, row);
        frame(
                out,
                (deprecateEof ? 3 : 4) + 2,
                deprecateEof ? new byte[] {(byte) 0xFE, 0, 0, 0x22, 0, 0, 0} : new byte[] {(byte) 0xFE, 0, 0, 0x22, 0});
        byte[] bytes = ByteBufUtil.getBytes(out);
        out.release();
        return bytes;
    }

    /** Built lazily, one at a time: each is 16 to 32 MiB. */
    static Stream<Arguments> bigResults() {
        List<Arguments> args = new ArrayList<>();
        for (boolean deprecateEof : new boolean[] {true, false}) {
            // a continuation frame of 5 bytes that look like an EOF packet, or like an ERR
            args.add(Arguments.of("eof-like continuation", deprecateEof, (Supplier<byte[]>)
                    () -> bigBinaryResult(deprecateEof, (byte) 0xFE, MAX_FRAME + 5, 40)));
            args.add(Arguments.of("err-like continuation", deprecateEof, (Supplier<byte[]>)
                    () -> bigBinaryResult(deprecateEof, (byte) 0xFF, MAX_FRAME + 5, 40)));
            // exactly 0xFFFFFF bytes: an empty frame ends the packet
            args.add(Arguments.of("packet of exactly 0xFFFFFF bytes", deprecateEof, (Supplier<byte[]>)
                    () -> bigBinaryResult(deprecateEof, (byte) 0xFE, 10, MAX_FRAME, 10)));
            args.add(Arguments.of("two full frames and a tail", deprecateEof, (Supplier<byte[]>)
                    () -> bigBinaryResult(deprecateEof, (byte) 0x00, 2 * MAX_FRAME + 1)));
            // a text row that starts with 0xFE: not a terminator, its packet is not short
            args.add(Arguments.of("text row starting with 0xFE", deprecateEof, (Supplier<byte[]>)
                    () -> bigTextResult(deprecateEof, (byte) 0xFE, 1 << 24)));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("bigResults")
    void streamsRowsOf16MiBAndMore(String name, boolean deprecateEof, Supplier<byte[]> result) {
        byte[] bytes = result.get();
        Stream2 s = new Stream2(bytes, List.of(new Expected(Response.RESULT_SET, bytes.length, 0x0022, false)), 0);
        check(s, deprecateEof, whole(bytes), "whole");
        int[] chunks = new int[(bytes.length + 65535) / 65536];
        Arrays.fill(chunks, 65536);
        chunks[chunks.length - 1] = bytes.length - 65536 * (chunks.length - 1);
        check(s, deprecateEof, chunks, "64 KiB reads");
        // cuts around every frame header
        for (int frameStart = 0; frameStart < bytes.length; ) {
            for (int cut = Math.max(0, frameStart - 2); cut <= Math.min(bytes.length, frameStart + 12); cut++) {
                check(s, deprecateEof, new int[] {cut, bytes.length - cut}, "cut at " + cut);
            }
            frameStart += 4
                    + (bytes[frameStart] & 0xFF
                            | (bytes[frameStart + 1] & 0xFF) << 8
                            | (bytes[frameStart + 2] & 0xFF) << 16);
        }
    }

    @ParameterizedTest(name = "{0} deprecateEof={1}")
    @MethodSource("bigResults")
    void holdsBackNoRowBytes(String name, boolean deprecateEof, Supplier<byte[]> result) {
        byte[] bytes = result.get();
        Feeder f = new Feeder(deprecateEof, bytes);
        f.scanner.expect(Response.RESULT_SET);
        for (int offset = 0; offset < bytes.length; offset += 65536) {
            f.feed(Math.min(65536, bytes.length - offset));
            // at most a frame header, a row's first byte or a whole (small) terminator
            assertThat(f.maxHeld).as("at %d", offset).isLessThanOrEqualTo(11);
        }
        assertThat(f.completions).containsExactly(new Completion(0x0022, false, bytes.length));
    }
}
