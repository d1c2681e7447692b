package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;

/**
 * Whether a client's statement bytes are valid in its character set, so that the text decoded from
 * them encodes back to the same bytes (binary data in a string literal, as a dump without
 * --hex-blob writes it, is not valid UTF-8 and would come back altered).
 */
final class TextBytes {
    private TextBytes() {}

    /** Checks {@code payload} from {@code offset} past its reader index; neither retains nor releases it. */
    static boolean valid(ByteBuf payload, int offset, Charset charset) {
        try {
            charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(payload.nioBuffer(payload.readerIndex() + offset, payload.readableBytes() - offset));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
