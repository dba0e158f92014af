package io.flashstock.devservices;

import java.util.Locale;

/** Host, port and database read from the JDBC and Redis URLs the service is configured with. */
final class ServerAddresses {

    private ServerAddresses() {
    }

    /** {@code jdbc:mysql://host[:port]/db[?query]}, the first host of a multi-host URL. */
    static final class JdbcTarget {
        final String prefix;
        final String host;
        final int port;
        final String database;
        final String query;

        JdbcTarget(String prefix, String host, int port, String database, String query) {
            this.prefix = prefix;
            this.host = host;
            this.port = port;
            this.database = database;
            this.query = query;
        }

        static JdbcTarget parse(String url) {
            int scheme = url.indexOf("://");
            if (!url.startsWith("jdbc:") || scheme < 0) {
                return null;
            }
            String prefix = url.substring(0, scheme + 3);
            String rest = url.substring(scheme + 3);
            int end = indexOfAny(rest, "/?");
            String authority = end < 0 ? rest : rest.substring(0, end);
            String tail = end < 0 ? "" : rest.substring(end);
            String path = tail;
            String query = null;
            int q = tail.indexOf('?');
            if (q >= 0) {
                path = tail.substring(0, q);
                query = tail.substring(q + 1);
            }
            String database = path.startsWith("/") ? path.substring(1) : path;
            HostPort hp = HostPort.parse(authority, 3306);
            return hp == null ? null : new JdbcTarget(prefix, hp.host, hp.port, database, query);
        }

        JdbcTarget withAddress(String newHost, int newPort) {
            return new JdbcTarget(prefix, newHost, newPort, database, query);
        }

        String url() {
            return prefix + HostPort.format(host) + ":" + port + "/" + database
                    + (query == null || query.isEmpty() ? "" : "?" + query);
        }
    }

    /** {@code redis://[user:pass@]host[:port][/db]}, the first of a comma-separated list. */
    static final class RedisTarget {
        final String host;
        final int port;
        final String path;

        RedisTarget(String host, int port, String path) {
            this.host = host;
            this.port = port;
            this.path = path;
        }

        static RedisTarget parse(String hosts) {
            String first = hosts.split(",", 2)[0].trim();
            String lower = first.toLowerCase(Locale.ROOT);
            String rest;
            if (lower.startsWith("redis://")) {
                rest = first.substring("redis://".length());
            } else if (lower.startsWith("rediss://")) {
                rest = first.substring("rediss://".length());
            } else {
                return null;
            }
            int end = indexOfAny(rest, "/?");
            String authority = end < 0 ? rest : rest.substring(0, end);
            String path = end < 0 ? "" : rest.substring(end);
            HostPort hp = HostPort.parse(authority, 6379);
            return hp == null ? null : new RedisTarget(hp.host, hp.port, path);
        }

        /** Without credentials: the embedded Redis has none. */
        String url() {
            return "redis://" + HostPort.format(host) + ":" + port + path;
        }
    }

    static final class HostPort {
        final String host;
        final int port;

        private HostPort(String host, int port) {
            this.host = host;
            this.port = port;
        }

        /** {@code [user[:pass]@]host[:port]}, {@code [v6]:port}; the first of a comma-separated list. */
        static HostPort parse(String authority, int defaultPort) {
            String a = authority.split(",", 2)[0].trim();
            int at = a.lastIndexOf('@');
            if (at >= 0) {
                a = a.substring(at + 1);
            }
            if (a.isEmpty() || a.contains("(") || a.contains("=")) {
                return null;
            }
            String host = a;
            String port = null;
            if (a.startsWith("[")) {
                int close = a.indexOf(']');
                if (close < 0) {
                    return null;
                }
                host = a.substring(1, close);
                if (a.length() > close + 1 && a.charAt(close + 1) == ':') {
                    port = a.substring(close + 2);
                }
            } else if (a.indexOf(':') >= 0 && a.indexOf(':') == a.lastIndexOf(':')) {
                host = a.substring(0, a.indexOf(':'));
                port = a.substring(a.indexOf(':') + 1);
            }
            if (host.isEmpty()) {
                return null;
            }
            try {
                int p = port == null || port.isEmpty() ? defaultPort : Integer.parseInt(port);
                return p > 0 && p < 65536 ? new HostPort(host, p) : null;
            } catch (NumberFormatException e) {
                return null;
            }
        }

        static String format(String host) {
            return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        }
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
