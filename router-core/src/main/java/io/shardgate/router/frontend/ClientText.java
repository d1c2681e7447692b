package io.shardgate.router.frontend;

import io.netty.buffer.ByteBuf;
import io.shardgate.protocol.codec.EscapedText;
import io.shardgate.protocol.packet.ErrPacket;
import io.shardgate.protocol.type.Collations;
import io.shardgate.router.routing.Errors;
import io.shardgate.router.session.ClientCharset;
import io.shardgate.router.session.SessionVariables;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Statement text in the client's character set (character_set_client: the handshake's collation,
 * then SET NAMES / SET character_set_client), decoded to Java strings. The charset is computed
 * once per session state. Event-loop confined.
 */
final class ClientText {
    private final SessionState state;
    private final SessionLeases leases;
    /** The client's character set, computed for {@link #charsetOf} and {@link #charsetCollation}. */
    private Charset clientCharset;

    private SessionVariables charsetOf;
    private int charsetCollation = -1;

    ClientText(SessionState state, SessionLeases leases) {
        this.state = state;
        this.leases = leases;
    }

    /**
     * The text of a command's payload after its command byte, in the client's character set, bytes
     * not valid in it as {@link EscapedText} escapes; null when that character set is not known to
     * the router and the text is not plain ASCII.
     */
    String text(ByteBuf payload) {
        int from = payload.readerIndex() + 1;
        int length = payload.readableBytes() - 1;
        Charset charset = clientCharset();
        if (charset == null && payload.forEachByte(from, length, b -> b >= 0) >= 0) {
            return null;
        }
        String text = payload.toString(from, length, charset != null ? charset : StandardCharsets.US_ASCII);
        if (text.indexOf('\uFFFD') >= 0 && !EscapedText.valid(payload, from, length, charset)) {
            // bytes not valid in the charset (binary data in a literal): kept as escapes, written back as they came
            return EscapedText.decode(payload, from, length, charset);
        }
        return text;
    }

    /** The character set of statement text to and from the client's backend connections. */
    Charset charset() {
        Charset charset = clientCharset();
        return charset != null ? charset : StandardCharsets.US_ASCII;
    }

    /** The answer to text {@link #text} could not decode. */
    ErrPacket undecodable() {
        return Errors.notSupported("statement text with bytes beyond ASCII in character set "
                + Collations.charsetOf(leases.kind().characterSet())
                + " or one set by SET NAMES that Shardgate cannot decode (use utf8mb4, latin1 or another character"
                + " set with a Java equivalent)");
    }

    /** The client's character_set_client as a Java charset, or null when unknown (cached per session state). */
    private Charset clientCharset() {
        SessionVariables desired = state.desired();
        if (charsetOf != desired || charsetCollation != leases.kind().characterSet()) {
            charsetOf = desired;
            charsetCollation = leases.kind().characterSet();
            clientCharset = ClientCharset.of(charsetCollation, desired.fragments());
        }
        return clientCharset;
    }
}
