package io.shardgate.router.login;

import io.shardgate.protocol.auth.StoredCredential;
import io.shardgate.router.config.UserConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The accounts clients may log in with. Holds password hashes only. A user configured with just
 * a mysql_native_password hash gains a caching_sha2_password hash after its first full
 * authentication (plaintext over TLS or RSA), as MySQL's own in-memory cache does, so later
 * logins take the fast path.
 */
public final class UserDirectory {
    private volatile Map<String, UserConfig> users;
    private final Map<String, StoredCredential> learned = new ConcurrentHashMap<>();
    /** The configured credential each learned one was verified against. */
    private final Map<String, StoredCredential> learnedFrom = new ConcurrentHashMap<>();

    public UserDirectory(List<UserConfig> users) {
        this.users = byName(users);
    }

    private static Map<String, UserConfig> byName(List<UserConfig> users) {
        return users.stream().collect(Collectors.toUnmodifiableMap(UserConfig::name, Function.identity()));
    }

    /**
     * Makes {@code next} the accounts new logins check (hot reload). Sessions already logged in
     * keep running, as in MySQL after DROP USER; what was learned about a user whose hashes changed
     * or who is gone is forgotten.
     */
    public void replace(List<UserConfig> next) {
        Map<String, UserConfig> map = byName(next);
        users = map;
        learned.keySet().removeIf(name -> {
            UserConfig user = map.get(name);
            return user == null || !user.credential().equals(learnedFrom.get(name));
        });
    }

    /** The user, or null. */
    public UserConfig find(String name) {
        return users.get(name);
    }

    /** The credential to verify against: the configured one, improved by what was learned. */
    public StoredCredential credential(UserConfig user) {
        StoredCredential better = learned.get(user.name());
        return better != null ? better : user.credential();
    }

    /** Remembers a credential computed from a verified plaintext password. */
    public void learn(UserConfig user, StoredCredential credential) {
        learnedFrom.put(user.name(), user.credential());
        learned.put(user.name(), credential);
    }
}
