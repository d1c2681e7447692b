package io.shardgate.router.login;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.shardgate.router.config.UserConfig;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Connections open per user, for {@code users[].max_connections} (MySQL's per-account
 * MAX_USER_CONNECTIONS). A login takes a slot after authentication, as MySQL checks the limit
 * after it has verified the password; the slot goes back when the connection closes.
 *
 * <p>Thread-safe: logins on every event loop count here. Users without a limit are not tracked.
 */
public final class UserConnections {
    /** The user whose slot a client channel holds (its login user, or the last COM_CHANGE_USER's). */
    private static final AttributeKey<UserConfig> SLOT = AttributeKey.valueOf("shardgate.userSlot");

    private final ConcurrentMap<String, Integer> open = new ConcurrentHashMap<>();

    /** Takes a slot for {@code user} on behalf of {@code channel}, given back when it closes; false when none is free. */
    public boolean takeFor(Channel channel, UserConfig user) {
        if (!tryAcquire(user)) {
            return false;
        }
        channel.attr(SLOT).set(user);
        channel.closeFuture().addListener(f -> releaseFor(channel));
        return true;
    }

    /**
     * Moves {@code channel}'s slot to {@code user} after COM_CHANGE_USER (MySQL counts connections
     * per account); false, keeping the old slot, when {@code user} has none free.
     */
    public boolean moveFor(Channel channel, UserConfig user) {
        UserConfig held = channel.attr(SLOT).get();
        if (held != null && held.name().equals(user.name())) {
            return true;
        }
        if (!tryAcquire(user)) {
            return false;
        }
        UserConfig old = channel.attr(SLOT).getAndSet(user);
        if (old != null) {
            release(old);
        }
        if (!channel.isOpen()) {
            releaseFor(channel); // closed meanwhile: the close listener may have run already
        }
        return true;
    }

    private void releaseFor(Channel channel) {
        UserConfig held = channel.attr(SLOT).getAndSet(null);
        if (held != null) {
            release(held);
        }
    }

    /** Takes a slot for {@code user}; false when it already holds its {@code max_connections}. */
    public boolean tryAcquire(UserConfig user) {
        int max = user.maxConnections();
        if (max == 0) {
            return true;
        }
        boolean[] taken = {false};
        open.compute(user.name(), (name, n) -> {
            int current = n == null ? 0 : n;
            if (current >= max) {
                return n;
            }
            taken[0] = true;
            return current + 1;
        });
        return taken[0];
    }

    /** Gives back a slot taken by {@link #tryAcquire}. */
    public void release(UserConfig user) {
        if (user.maxConnections() != 0) {
            open.computeIfPresent(user.name(), (name, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Connections {@code user} holds now (counted only for users with a limit). */
    public int open(String user) {
        return open.getOrDefault(user, 0);
    }
}
