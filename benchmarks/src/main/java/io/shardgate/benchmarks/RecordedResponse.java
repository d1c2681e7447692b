package io.shardgate.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A server response recorded from a real MariaDB for protocol's ResponseScannerTest ({@code
 * protocol/src/test/resources/responses/*.hex}, copied onto the class path by the build): every
 * byte the server sent, one frame per hex line, {@code #} lines describing the recording.
 */
final class RecordedResponse {
    private RecordedResponse() {}

    /** The bytes of {@code NAME.deprecate-eof.hex} or {@code NAME.eof.hex}, frames concatenated. */
    static byte[] load(String name, boolean deprecateEof) {
        String path = "/responses/" + name + (deprecateEof ? ".deprecate-eof.hex" : ".eof.hex");
        try (InputStream in = RecordedResponse.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the class path");
            }
            StringBuilder hex = new StringBuilder();
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    hex.append(line.strip());
                }
            }
            return HexFormat.of().parseHex(hex);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
