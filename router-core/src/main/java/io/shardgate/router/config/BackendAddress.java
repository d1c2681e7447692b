package io.shardgate.router.config;

/** A backend server's {@code host:port}; the port defaults to 3306. */
public record BackendAddress(String host, int port) {

    /** Parses {@code host}, {@code host:port} or {@code [ipv6]:port}. */
    public static BackendAddress parse(String text) {
        String s = text.trim();
        String host = s;
        int port = 3306;
        int colon = s.lastIndexOf(':');
        boolean bracketed = s.startsWith("[");
        if (colon > 0 && (!bracketed || s.lastIndexOf(']') < colon) && s.indexOf(':') == colon
                || bracketed && colon > s.lastIndexOf(']')) {
            host = s.substring(0, colon);
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new ConfigException("'" + text + "' has an invalid port");
            }
        }
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new ConfigException("'" + text + "' is not a valid host:port");
        }
        return new BackendAddress(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
