package io.shardgate.it.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real MariaDB server process listening on 127.0.0.1, with its own data directory; the backend
 * (shard) of every integration test, benchmark and demo.
 *
 * <p>{@link #builder()} configures it, {@link Builder#start()} creates and initialises the data
 * directory with {@code mariadb-install-db}, starts {@code mariadbd} and returns once the server
 * logged "ready for connections". At each start an init file sets the root password (for {@code
 * root@localhost}, {@code root@127.0.0.1} and {@code root@%}) and creates the optional database and
 * the optional user (mysql_native_password, all privileges on {@code *.*}). {@link #close()} stops
 * the server and deletes everything it created: a temporary data directory, but never a data
 * directory the caller named.
 *
 * <p>Defaults chosen for tests: TLS off (MariaDB 11.4 generates a certificate at every start, which
 * takes 3 to 17 s on a 2-core machine; pass {@code --ssl} as an extra argument to have it),
 * utf8mb4 server character set, max_connections 1000, max_allowed_packet 64 MiB. Extra arguments
 * come last, so they override these.
 */
public final class MariaDbServer implements AutoCloseable {

    public static final String HOST = "127.0.0.1";

    private static final Logger LOG = LoggerFactory.getLogger(MariaDbServer.class);
    private static final String READY = "ready for connections";
    private static final int START_ATTEMPTS = 5;

    private final Builder options;
    private final Path home;
    private final Path dataDir;
    private final Thread shutdownHook;
    private Process process;
    private int port;

    private MariaDbServer(Builder options, Path home, Path dataDir) {
        this.options = options;
        this.home = home;
        this.dataDir = dataDir;
        this.shutdownHook = new Thread(this::stop, "mariadb-shutdown-" + home.getFileName());
    }

    public static Builder builder() {
        return new Builder();
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:port}, as a hostgroup's writer address. */
    public String address() {
        return HOST + ":" + port;
    }

    public Path dataDir() {
        return dataDir;
    }

    public long pid() {
        return process.pid();
    }

    public String rootPassword() {
        return options.rootPassword;
    }

    /** The database created at start, or null. */
    public String database() {
        return options.database;
    }

    /** The user created at start, or null. */
    public String user() {
        return options.user;
    }

    public String password() {
        return options.password;
    }

    public MariaDbBinaries binaries() {
        return options.binaries;
    }

    /** Stops the server (SIGTERM, then SIGKILL after 60 s) and deletes what {@link #builder()} created. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down and runs the hook itself
        }
        stop();
    }

    private synchronized void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    LOG.warn("mariadbd on port {} did not stop within 60 s, killing it", port);
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try {
            MariaDbBinaries.deleteTree(home); // holds the data directory unless the caller named one
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", home, e.toString());
        }
    }

    private void start() throws IOException, InterruptedException {
        if (!Files.isDirectory(dataDir.resolve("mysql"))) {
            installDataDir();
        }
        Path initFile = home.resolve("init.sql");
        Files.writeString(
                initFile,
                MariaDbInitFile.sql(options.rootPassword, options.database, options.user, options.password),
                StandardCharsets.UTF_8);
        Files.createDirectories(home.resolve("tmp"));
        for (int attempt = 1; ; attempt++) {
            port = options.port != 0 ? options.port : freePort();
            Path log = home.resolve("mariadbd-" + attempt + ".log");
            ProcessBuilder command = new ProcessBuilder(serverCommand(initFile))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            command.environment().putAll(options.binaries.environment());
            process = command.start();
            String failure = awaitReady(log);
            if (failure == null) {
                Runtime.getRuntime().addShutdownHook(shutdownHook);
                LOG.info(
                        "MariaDB ready on {} (pid {}, data {}, {})",
                        address(),
                        pid(),
                        dataDir,
                        options.binaries.mariadbd());
                return;
            }
            // a free port can be taken between our probe and mariadbd's bind
            boolean portRace = options.port == 0 && failure.contains("Address already in use");
            if (!portRace || attempt == START_ATTEMPTS) {
                throw new IllegalStateException("mariadbd did not start on port " + port + ":\n" + failure);
            }
        }
    }

    private void installDataDir() throws IOException, InterruptedException {
        Files.createDirectories(dataDir);
        Files.createDirectories(home.resolve("tmp"));
        List<String> command = new ArrayList<>(List.of(
                options.binaries.installDb().toString(),
                "--no-defaults",
                "--basedir=" + options.binaries.baseDir(),
                "--datadir=" + dataDir,
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
                // its own temporary directory: bootstraps running at once in /tmp delete each other's files
                "--tmpdir=" + home.resolve("tmp")));
        if (runningAsRoot()) {
            command.add("--user=root");
        }
        Path log = home.resolve("install-db.log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(options.binaries.environment());
        Process install = builder.start();
        if (!install.waitFor(options.startTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            install.destroyForcibly();
            throw new IllegalStateException("mariadb-install-db did not finish within " + options.startTimeout);
        }
        if (install.exitValue() != 0) {
            throw new IllegalStateException("mariadb-install-db exited with " + install.exitValue() + ":\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
    }

    private List<String> serverCommand(Path initFile) {
        List<String> command = new ArrayList<>(List.of(
                options.binaries.mariadbd().toString(),
                "--no-defaults",
                "--basedir=" + options.binaries.baseDir(),
                "--datadir=" + dataDir,
                "--tmpdir=" + home.resolve("tmp"),
                "--socket=" + home.resolve("mysqld.sock"),
                "--pid-file=" + home.resolve("mariadbd.pid"),
                "--bind-address=" + HOST,
                "--port=" + port,
                "--skip-name-resolve",
                "--skip-ssl",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--max-connections=1000",
                "--max-allowed-packet=64M",
                "--innodb-buffer-pool-size=" + options.innodbBufferPoolSize,
                "--init-file=" + initFile));
        if (runningAsRoot()) {
            command.add("--user=root"); // mariadbd refuses to run as root without it
        }
        command.addAll(options.args);
        return command;
    }

    /** Null once the log says ready; the log's tail when the process exits or the timeout passes. */
    private String awaitReady(Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + options.startTimeout.toNanos();
        while (true) {
            String output = Files.readString(log, StandardCharsets.UTF_8);
            if (output.contains(READY)) {
                return null;
            }
            if (!process.isAlive()) {
                return tail(output, "exited with " + process.exitValue());
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return tail(output, "not ready after " + options.startTimeout);
            }
            Thread.sleep(50);
        }
    }

    private static String tail(String output, String reason) {
        return reason + "\n" + output.substring(Math.max(0, output.length() - 4000));
    }

    private static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }

    /** Options of one server; {@link #start()} launches it. */
    public static final class Builder {
        private int port;
        private Path dataDir;
        private String rootPassword = "shardgate-root";
        private String database;
        private String user;
        private String password;
        private String innodbBufferPoolSize = "128M";
        private final List<String> args = new ArrayList<>();
        private MariaDbBinaries binaries;
        private Duration startTimeout = Duration.ofMinutes(2);

        private Builder() {}

        /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** A data directory to use and keep (initialised when empty); default: a temporary one. */
        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        public Builder rootPassword(String rootPassword) {
            this.rootPassword = Objects.requireNonNull(rootPassword);
            return this;
        }

        /** A database to create if it does not exist. */
        public Builder database(String database) {
            this.database = database;
            return this;
        }

        /** A user with a mysql_native_password password and all privileges, e.g. the router's. */
        public Builder user(String user, String password) {
            this.user = Objects.requireNonNull(user);
            this.password = Objects.requireNonNull(password);
            return this;
        }

        /** innodb_buffer_pool_size, e.g. {@code 64M} or {@code 1G}. */
        public Builder innodbBufferPoolSize(String size) {
            this.innodbBufferPoolSize = Objects.requireNonNull(size);
            return this;
        }

        /** An extra mariadbd argument, e.g. {@code --max-allowed-packet=1G}; it overrides our defaults. */
        public Builder arg(String arg) {
            args.add(Objects.requireNonNull(arg));
            return this;
        }

        /** Default: {@link MariaDbBinaries#resolve()}. */
        public Builder binaries(MariaDbBinaries binaries) {
            this.binaries = binaries;
            return this;
        }

        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = Objects.requireNonNull(startTimeout);
            return this;
        }

        public MariaDbServer start() {
            if (binaries == null) {
                binaries = MariaDbBinaries.resolve();
            }
            Builder frozen = copy();
            Path home = null;
            try {
                home = Files.createTempDirectory("shardgate-mariadb-");
                Path data = dataDir != null ? dataDir.toAbsolutePath() : home.resolve("data");
                MariaDbServer server = new MariaDbServer(frozen, home, data);
                try {
                    server.start();
                } catch (IOException | InterruptedException | RuntimeException e) {
                    server.stop();
                    throw e;
                }
                return server;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start MariaDB in " + home, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting MariaDB", e);
            }
        }

        private Builder copy() {
            Builder copy = new Builder();
            copy.port = port;
            copy.dataDir = dataDir;
            copy.rootPassword = rootPassword;
            copy.database = database;
            copy.user = user;
            copy.password = password;
            copy.innodbBufferPoolSize = innodbBufferPoolSize;
            copy.args.addAll(args);
            copy.binaries = binaries;
            copy.startTimeout = startTimeout;
            return copy;
        }
    }
}
