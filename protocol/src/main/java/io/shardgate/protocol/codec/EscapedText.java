package io.shardgate.protocol.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;

/**
 * Statement text that keeps the bytes that are not valid in its character set. Decoded, each such
 * byte {@code b} becomes the lone low surrogate {@code U+DC00 + b} (Python's "surrogateescape"),
 * which no valid text decodes to; written, each goes back to its byte. A binary value in a string
 * literal (every BLOB of a dump made without {@code --hex-blob}) so survives being decoded, planned
 * and rendered for several shards byte for byte, where a standard decoder would have replaced it
 * with U+FFFD. Text without such bytes is decoded and written exactly as by the charset itself.
 *
 * <p>Written by hand: the JDK and Netty decoders replace or report malformed input, none escapes it.
 */
public final class EscapedText {
    private static final char FIRST_ESCAPE = '\uDC00';
    private static final char LAST_ESCAPE = '\uDCFF';

    private EscapedText() {}

    /**
     * The text of {@code length} bytes of {@code in} from index {@code from} (reader index
     * unchanged) in {@code charset}, invalid bytes escaped.
     */
    public static String decode(ByteBuf in, int from, int length, Charset charset) {
        CharsetDecoder decoder = charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer bytes = in.nioBuffer(from, length);
        CharBuffer out = CharBuffer.allocate(length + 16);
        while (true) {
            CoderResult result = decoder.decode(bytes, out, true);
            if (result.isUnderflow()) {
                result = decoder.flush(out);
                if (result.isUnderflow()) {
                    break;
                }
            }
            if (result.isOverflow()) {
                out = grow(out);
                continue;
            }
            for (int i = 0; i < result.length(); i++) { // malformed or unmappable: escape each byte
                if (!out.hasRemaining()) {
                    out = grow(out);
                }
                out.put((char) (FIRST_ESCAPE + (bytes.get() & 0xFF)));
            }
        }
        return out.flip().toString();
    }

    /** Whether every byte of {@code length} bytes of {@code in} from {@code from} is valid in {@code charset}. */
    public static boolean valid(ByteBuf in, int from, int length, Charset charset) {
        try {
            charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(in.nioBuffer(from, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** Writes {@code text} to {@code out} in {@code charset}, each escape as its byte. */
    public static void write(ByteBuf out, CharSequence text, Charset charset) {
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            if (isEscape(text, i)) {
                if (i > run) {
                    out.writeCharSequence(text.subSequence(run, i), charset);
                }
                out.writeByte(text.charAt(i) - FIRST_ESCAPE);
                run = i + 1;
            }
        }
        if (run == 0) {
            out.writeCharSequence(text, charset);
        } else if (run < text.length()) {
            out.writeCharSequence(text.subSequence(run, text.length()), charset);
        }
    }

    /** {@code text} in {@code charset}, each escape as its byte (no Netty: the sharding module hashes keys with it). */
    public static byte[] bytes(String text, Charset charset) {
        if (!escaped(text)) {
            return text.getBytes(charset);
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(text.length() * 4);
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            if (isEscape(text, i)) {
                out.writeBytes(text.substring(run, i).getBytes(charset));
                out.write(text.charAt(i) - FIRST_ESCAPE);
                run = i + 1;
            }
        }
        out.writeBytes(text.substring(run).getBytes(charset));
        return out.toByteArray();
    }

    /** Whether {@code text} holds an escaped byte. */
    public static boolean escaped(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            if (isEscape(text, i)) {
                return true;
            }
        }
        return false;
    }

    /** {@code text} with each escape replaced by {@code replacement} (as a server stores such bytes in a text column). */
    public static String replaceEscapes(String text, char replacement) {
        if (!escaped(text)) {
            return text;
        }
        StringBuilder b = new StringBuilder(text);
        for (int i = 0; i < b.length(); i++) {
            if (isEscape(b, i)) {
                b.setCharAt(i, replacement);
            }
        }
        return b.toString();
    }

    /** A low surrogate of the escape range not preceded by a high surrogate (it would then be half a pair). */
    private static boolean isEscape(CharSequence text, int i) {
        char c = text.charAt(i);
        return c >= FIRST_ESCAPE && c <= LAST_ESCAPE && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
    }

    private static CharBuffer grow(CharBuffer out) {
        CharBuffer bigger = CharBuffer.allocate(out.capacity() * 2 + 16);
        out.flip();
        bigger.put(out);
        return bigger;
    }
}
