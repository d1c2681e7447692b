package io.shardgate.router.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TransportChoiceTest {
    private static final String NO_LIB = "no native library";

    @Test
    void autoTakesTheFirstOfItsOrderThatLoadsWithoutAWarning() {
        TransportChoice both = TransportChoice.of(null, null, null);
        assertThat(both.name()).isEqualTo(TransportChoice.AUTO_ORDER.get(0));
        assertThat(both.fallback()).isNull();
        assertThat(TransportChoice.of("", null, null)).isEqualTo(both);
        assertThat(TransportChoice.of("auto", null, null)).isEqualTo(both);
    }

    @Test
    void autoFallsBackToTheOtherNativeTransportThenNio() {
        TransportChoice onlyUring = TransportChoice.of("auto", null, NO_LIB);
        assertThat(onlyUring.name()).isEqualTo("io_uring");
        TransportChoice onlyEpoll = TransportChoice.of("auto", NO_LIB, null);
        assertThat(onlyEpoll.name()).isEqualTo("epoll");
        TransportChoice none = TransportChoice.of("auto", NO_LIB, "not Linux");
        assertThat(none.name()).isEqualTo("nio");
        assertThat(none.fallback())
                .contains("io_uring does not load (no native library)", "epoll does not load (not Linux)")
                .endsWith(": running on nio")
                .doesNotContain("asked for");
    }

    @Test
    void aNamedTransportIsTakenWhenItLoads() {
        assertThat(TransportChoice.of("io_uring", null, null)).isEqualTo(new TransportChoice("io_uring", null));
        assertThat(TransportChoice.of("epoll", null, null)).isEqualTo(new TransportChoice("epoll", null));
        assertThat(TransportChoice.of("nio", null, null)).isEqualTo(new TransportChoice("nio", null));
        assertThat(TransportChoice.of(" io_uring ", null, null).name()).isEqualTo("io_uring");
    }

    @Test
    void aNamedTransportThatDoesNotLoadFallsBackWithTheReason() {
        TransportChoice uring = TransportChoice.of("io_uring", "io_uring_setup failed: EPERM", null);
        assertThat(uring.name()).isEqualTo("epoll");
        assertThat(uring.fallback())
                .isEqualTo("transport io_uring asked for, io_uring does not load (io_uring_setup failed: EPERM):"
                        + " running on epoll");
        TransportChoice epoll = TransportChoice.of("epoll", null, NO_LIB);
        assertThat(epoll.name()).isEqualTo("io_uring");
        assertThat(epoll.fallback()).startsWith("transport epoll asked for, epoll does not load");
        assertThat(TransportChoice.of("io_uring", NO_LIB, NO_LIB).name()).isEqualTo("nio");
    }

    @Test
    void anUnknownNameIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> TransportChoice.of("uring", null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown transport 'uring': expected one of auto, io_uring, epoll, nio");
    }
}
