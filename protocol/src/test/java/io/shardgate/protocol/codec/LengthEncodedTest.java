package io.shardgate.protocol.codec;

import static io.shardgate.protocol.fixture.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.shardgate.protocol.fixture.Wire;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LengthEncodedTest {
    @Test
    void integersUseTheShortestForm() {
        assertInt(0, "00");
        assertInt(250, "fa");
        assertInt(251, "fcfb00");
        assertInt(0xFFFF, "fcffff");
        assertInt(0x10000, "fd000001");
        assertInt(0xFFFFFF, "fdffffff");
        assertInt(0x1000000, "fe0000000100000000");
        assertInt(-1L, "feffffffffffffffff");
    }

    private static void assertInt(long value, String hex) {
        byte[] bytes = Wire.write(value, (v, out) -> LengthEncoded.writeInt(out, v));
        assertThat(bytes).isEqualTo(hex(hex));
        assertThat(LengthEncoded.sizeOfInt(value)).isEqualTo(bytes.length);
        assertThat((long) Wire.read(bytes, LengthEncoded::readInt)).isEqualTo(value);
    }

    @Test
    void nullMarkerAndErrHeaderAreNotIntegers() {
        Wire.failsTyped(hex("fb"), LengthEncoded::readInt);
        Wire.failsTyped(hex("ff"), LengthEncoded::readInt);
        Wire.failsTyped(hex(""), LengthEncoded::readInt);
        Wire.failsTyped(hex("fc01"), LengthEncoded::readInt);
        Wire.failsTyped(hex("fd0101"), LengthEncoded::readInt);
        Wire.failsTyped(hex("fe01010101"), LengthEncoded::readInt);
    }

    @Test
    void stringsBytesAndNull() {
        byte[] abc = hex("03616263");
        assertThat(Wire.<String>read(abc, in -> LengthEncoded.readString(in, StandardCharsets.UTF_8)))
                .isEqualTo("abc");
        assertThat(Wire.read(abc, LengthEncoded::readBytes)).isEqualTo("abc".getBytes());
        assertThat(Wire.write("abc", (s, out) -> LengthEncoded.writeString(out, s, StandardCharsets.UTF_8)))
                .isEqualTo(abc);
        assertThat(Wire.read(hex("fb"), LengthEncoded::readBytes)).isNull();
        assertThat(Wire.<String>read(hex("fb"), in -> LengthEncoded.readString(in, StandardCharsets.UTF_8)))
                .isNull();
        assertThat(Wire.write((byte[]) null, (b, out) -> LengthEncoded.writeBytes(out, b)))
                .isEqualTo(hex("fb"));
        byte[] zeros = hex("03000100");
        assertThat(Wire.read(zeros, LengthEncoded::readBytes)).isEqualTo(hex("000100"));
        byte[] empty = hex("00");
        assertThat(Wire.read(empty, LengthEncoded::readBytes)).isEmpty();
        byte[] long300 = new byte[300];
        byte[] written = Wire.write(long300, (b, out) -> LengthEncoded.writeBytes(out, b));
        assertThat(written).hasSize(303).startsWith(0xfc, 0x2c, 0x01);
        assertThat(LengthEncoded.sizeOfString(300)).isEqualTo(303);
    }

    @Test
    void skipAndSliceDoNotCopy() {
        ByteBuf in = Unpooled.wrappedBuffer(hex("0261 62 fb 01 63"));
        ByteBuf slice = LengthEncoded.readSlice(in);
        assertThat(slice.toString(StandardCharsets.US_ASCII)).isEqualTo("ab");
        assertThat(LengthEncoded.isNull(in)).isTrue();
        LengthEncoded.skip(in);
        assertThat(LengthEncoded.readSlice(in).readableBytes()).isEqualTo(1);
        assertThat(in.isReadable()).isFalse();
        in.release();
    }

    @Test
    void stringLongerThanThePacketFailsTyped() {
        Wire.failsTyped(hex("05616263"), LengthEncoded::readBytes);
        Wire.failsTyped(hex("05616263"), LengthEncoded::skip);
        Wire.failsTyped(hex("feffffffffffffff7f"), LengthEncoded::readSlice);
        assertThatThrownBy(() -> Wire.read(hex("fe0000000000000080"), LengthEncoded::readBytes))
                .isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void nulTerminatedStrings() {
        assertThat(Wire.<String>read(hex("616200"), in -> NulTerminated.readString(in, StandardCharsets.UTF_8)))
                .isEqualTo("ab");
        assertThat(Wire.<String>read(hex("6162"), in -> NulTerminated.readStringOrRest(in, StandardCharsets.UTF_8)))
                .isEqualTo("ab");
        Wire.failsTyped(hex("6162"), in -> NulTerminated.readString(in, StandardCharsets.UTF_8));
        Wire.failsTyped(hex("6162"), NulTerminated::readBytes);
    }
}
