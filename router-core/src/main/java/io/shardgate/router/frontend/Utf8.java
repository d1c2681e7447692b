package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Whether a client's statement bytes are valid UTF-8, so the text decoded from them keeps every byte. */
final class Utf8 {
    private Utf8() {}

    /** Checks {@code payload} from {@code offset} past its reader index; neither retains nor releases it. */
    static boolean valid(ByteBuf payload, int offset) {
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(payload.nioBuffer(payload.readerIndex() + offset, payload.readableBytes() - offset));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
