package io.shardgate.protocol.auth;

import java.util.Optional;

/** The authentication plugins Shardgate speaks, by their MySQL plugin name. */
public final class AuthPlugins {
    private static final AuthPlugin NATIVE = new MySqlNativePassword();
    private static final AuthPlugin CACHING_SHA2 = new CachingSha2Password();

    private AuthPlugins() {}

    /** The plugin called {@code name} (e.g. "mysql_native_password"), or empty when unsupported. */
    public static Optional<AuthPlugin> forName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        return switch (name) {
            case MySqlNativePassword.NAME -> Optional.of(NATIVE);
            case CachingSha2Password.NAME -> Optional.of(CACHING_SHA2);
            default -> Optional.empty();
        };
    }
}
