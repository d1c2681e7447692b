package io.shardgate.router.config;

/** A backend server's {@code host:port}; the port defaults to 3306. */
public record BackendAddress(String host, int port) {
    private static final int DEFAULT_PORT = 3306;

    /** Parses {@code host}, {@code host:port}, {@code [ipv6]} or {@code [ipv6]:port}. */
    public static BackendAddress parse(String text) {
        String s = text.trim();
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new ConfigException("'" + text + "' has an unclosed '['");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new ConfigException("'" + text + "' is not a valid host:port");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = s.indexOf(':');
            if (colon >= 0 && colon != s.lastIndexOf(':')) {
                throw new ConfigException("'" + text + "': write IPv6 addresses as [address]:port");
            }
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
        }
        int number = DEFAULT_PORT;
        if (port != null) {
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new ConfigException("'" + text + "' has an invalid port '" + port + "'");
            }
        }
        if (host.isEmpty() || number < 1 || number > 65535) {
            throw new ConfigException("'" + text + "' is not a valid host:port");
        }
        return new BackendAddress(host, number);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
