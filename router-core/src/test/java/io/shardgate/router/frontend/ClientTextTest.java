package io.shardgate.router.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.charset.MySqlLatin1;
import io.shardgate.protocol.type.Collations;
import io.shardgate.protocol.type.Command;
import io.shardgate.protocol.type.ErrorCode;
import io.shardgate.router.pool.ConnectionKind;
import io.shardgate.router.session.StatementScanner;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientTextTest {
    private final SessionState state = new SessionState(null, "shop");
    private final SessionLeases leases = new SessionLeases(
            null, null, new ConnectionKind(0, 0, Collations.UTF8MB4_GENERAL_CI, "shop"), null, state.transaction());
    private final ClientText text = new ClientText(state, leases);
    private ByteBuf payload;

    @AfterEach
    void release() {
        if (payload != null) {
            payload.release();
        }
    }

    private ByteBuf query(byte... sql) {
        payload = Unpooled.buffer().writeByte(Command.COM_QUERY.code()).writeBytes(sql);
        return payload;
    }

    @Test
    void theTextAfterTheCommandByteInTheHandshakeCharset() {
        assertThat(text.text(query("SELECT 'é'".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("SELECT 'é'");
        assertThat(text.charset()).isEqualTo(StandardCharsets.UTF_8);
    }

    @Test
    void setNamesChangesHowTheNextStatementIsRead() {
        assertThat(text.charset()).isEqualTo(StandardCharsets.UTF_8); // computed once, then cached
        state.apply(StatementScanner.scan("SET NAMES latin1"));
        assertThat(text.charset()).isSameAs(MySqlLatin1.INSTANCE);
        assertThat(text.text(query(new byte[] {'\'', (byte) 0xE9, '\''}))).isEqualTo("'é'");
    }

    @Test
    void anUnknownCharsetReadsAsciiAndRefusesTheRest() {
        state.apply(StatementScanner.scan("SET NAMES armscii8"));
        assertThat(text.charset()).isEqualTo(StandardCharsets.US_ASCII);
        assertThat(text.text(query("SELECT 1".getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo("SELECT 1");
        payload.release();
        assertThat(text.text(query(new byte[] {'\'', (byte) 0xE9, '\''}))).isNull();
        assertThat(text.undecodable().code()).isEqualTo(ErrorCode.ER_NOT_SUPPORTED_YET.code());
        assertThat(text.undecodable().message()).contains("utf8mb4");
    }
}
