package io.shardgate.router.net;

import java.util.ArrayList;
import java.util.List;

/**
 * Which socket transport the router runs on, decided from what was asked for and which native
 * transports load on this machine: the one asked for when it loads, else the next that does (with
 * the reason, to log), NIO last since it always loads.
 *
 * @param name {@code io_uring}, {@code epoll} or {@code nio}
 * @param fallback why the transport asked for is not the one chosen; null when it is (or none was
 *     asked for and the preferred one loaded)
 */
public record TransportChoice(String name, String fallback) {
    /** The values {@code server.transport} and {@code -Dshardgate.transport} accept. */
    public static final List<String> NAMES = List.of("auto", "io_uring", "epoll", "nio");

    /**
     * What {@code auto} tries first, then second: epoll. io_uring was the faster under concurrent
     * clients on the 2-core development machine (kernel 6.18, Netty 4.2.18: sysbench point selects
     * at 16, 64 and 256 client threads took 0.70-0.86 of epoll's router CPU per query, one client
     * alone 1.10-1.32; benchmarks/results/transport-epoll-vs-io_uring-2026-11-28.md), but on it
     * ClientVanishesIT fails (it passes on epoll): after a client vanishes while its transaction's
     * statement runs on a shard, the transaction stays open there with its row locks (the test's
     * later cases still find it open). A router must not keep a vanished client's locks, so
     * io_uring stays an option ({@code server.transport: io_uring}) until that passes.
     */
    static final List<String> AUTO_ORDER = List.of("epoll", "io_uring");

    /**
     * @param requested a name of {@link #NAMES}; null or blank means {@code auto}
     * @param ioUringMissing why io_uring cannot load, null when it can
     * @param epollMissing why epoll cannot load, null when it can
     * @throws IllegalArgumentException for a name not in {@link #NAMES}
     */
    public static TransportChoice of(String requested, String ioUringMissing, String epollMissing) {
        String asked = requested == null || requested.isBlank() ? "auto" : requested.trim();
        if (!NAMES.contains(asked)) {
            throw new IllegalArgumentException(
                    "unknown transport '" + requested + "': expected one of " + String.join(", ", NAMES));
        }
        List<String> order = new ArrayList<>();
        if (asked.equals("auto")) {
            order.addAll(AUTO_ORDER);
        } else if (!asked.equals("nio")) {
            order.add(asked);
            order.addAll(AUTO_ORDER.stream().filter(t -> !t.equals(asked)).toList());
        }
        List<String> missing = new ArrayList<>();
        for (String candidate : order) {
            String why = candidate.equals("io_uring") ? ioUringMissing : epollMissing;
            if (why == null) {
                return new TransportChoice(candidate, fallbackReason(asked, candidate, missing));
            }
            missing.add(candidate + " does not load (" + why + ")");
        }
        return new TransportChoice("nio", fallbackReason(asked, "nio", missing));
    }

    private static String fallbackReason(String asked, String chosen, List<String> missing) {
        if (missing.isEmpty()) {
            return null;
        }
        return (asked.equals("auto") ? "" : "transport " + asked + " asked for, ")
                + String.join("; ", missing)
                + ": running on "
                + chosen;
    }
}
