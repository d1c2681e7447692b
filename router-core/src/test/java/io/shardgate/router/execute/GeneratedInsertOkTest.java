package io.shardgate.router.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class GeneratedInsertOkTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    /** A framed OK: affected rows 3, insert id 0, status 0x0002 (autocommit), 1 warning, info "x". */
    private static ByteBuf ok() {
        return Unpooled.wrappedBuffer(
                ByteBufUtil.decodeHexDump("080000" + "01" + "00" + "03" + "00" + "0200" + "0100" + "78"));
    }

    @Test
    void replacesTheInsertIdAndKeepsTheRest() {
        ByteBuf in = ok();
        long id = 0x1_2345_6789L; // needs the 9-byte length-encoded form: the packet grows
        ByteBuf out = GeneratedInsertOk.withInsertIdAndRelease(ALLOC, in, id);
        try {
            assertThat(in.refCnt()).isZero();
            assertThat(ByteBufUtil.hexDump(out))
                    .isEqualTo("10000001" + "00" + "03" + "fe8967452301000000" + "0200" + "0100" + "78");
        } finally {
            out.release();
        }
    }

    @Test
    void anErrIsLeftAsItIs() {
        ByteBuf err =
                Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("0900000" + "1" + "ff2604" + "23" + "3432303030"));
        ByteBuf out = GeneratedInsertOk.withInsertIdAndRelease(ALLOC, err, 5);
        try {
            assertThat(out).isSameAs(err);
            assertThat(GeneratedInsertOk.isOk(out)).isFalse();
        } finally {
            out.release();
        }
    }
}
