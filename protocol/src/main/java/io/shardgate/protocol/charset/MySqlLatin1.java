package io.shardgate.protocol.charset;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.util.Arrays;

/**
 * MySQL's {@code latin1}: Windows code page 1252, with the five bytes cp1252 leaves undefined
 * (0x81, 0x8D, 0x8F, 0x90, 0x9D) mapped to the C1 control characters of the same value, so every
 * byte decodes and encodes back to itself. The JDK's windows-1252 decodes those five to U+FFFD,
 * which would corrupt them on a round trip. Hand-written because no library ships this mapping.
 */
public final class MySqlLatin1 extends Charset {
    public static final MySqlLatin1 INSTANCE = new MySqlLatin1();

    private static final char[] TO_CHAR = new char[256];
    /** Unicode to byte for U+0000..U+FFFF; -1 where latin1 has no byte. */
    private static final short[] TO_BYTE = new short[65536];

    static {
        Charset cp1252 = Charset.forName("windows-1252");
        Arrays.fill(TO_BYTE, (short) -1);
        for (int b = 0; b < 256; b++) {
            char c = new String(new byte[] {(byte) b}, cp1252).charAt(0);
            if (c == '\uFFFD') {
                c = (char) b; // undefined in cp1252: MySQL maps it to the control character
            }
            TO_CHAR[b] = c;
            TO_BYTE[c] = (short) b;
        }
    }

    private MySqlLatin1() {
        super("x-mysql-latin1", new String[0]);
    }

    @Override
    public boolean contains(Charset cs) {
        return cs instanceof MySqlLatin1 || cs.name().equals("US-ASCII");
    }

    @Override
    public CharsetDecoder newDecoder() {
        return new CharsetDecoder(this, 1f, 1f) {
            @Override
            protected CoderResult decodeLoop(ByteBuffer in, CharBuffer out) {
                while (in.hasRemaining()) {
                    if (!out.hasRemaining()) {
                        return CoderResult.OVERFLOW;
                    }
                    out.put(TO_CHAR[in.get() & 0xFF]);
                }
                return CoderResult.UNDERFLOW;
            }
        };
    }

    @Override
    public CharsetEncoder newEncoder() {
        return new CharsetEncoder(this, 1f, 1f) {
            @Override
            protected CoderResult encodeLoop(CharBuffer in, ByteBuffer out) {
                while (in.hasRemaining()) {
                    char c = in.get(in.position());
                    short b = TO_BYTE[c];
                    if (b < 0) {
                        return Character.isSurrogate(c)
                                ? CoderResult.unmappableForLength(Character.isHighSurrogate(c) ? 2 : 1)
                                : CoderResult.unmappableForLength(1);
                    }
                    if (!out.hasRemaining()) {
                        return CoderResult.OVERFLOW;
                    }
                    out.put((byte) b);
                    in.position(in.position() + 1);
                }
                return CoderResult.UNDERFLOW;
            }
        };
    }
}
