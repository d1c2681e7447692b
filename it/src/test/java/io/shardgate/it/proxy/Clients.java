package io.shardgate.it.proxy;

import io.shardgate.it.Driver;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Every (driver, mode) pair, for {@code @MethodSource("io.shardgate.it.proxy.Clients#all")}. */
public final class Clients {

    private Clients() {}

    public static Stream<Arguments> all() {
        return Stream.of(Driver.values())
                .flatMap(driver -> Stream.of(Mode.values()).map(mode -> Arguments.of(driver, mode)));
    }

    /** A small number unique to the pair, to keep the rows each pair writes apart. */
    public static int ordinal(Driver driver, Mode mode) {
        return driver.ordinal() * Mode.values().length + mode.ordinal();
    }
}
