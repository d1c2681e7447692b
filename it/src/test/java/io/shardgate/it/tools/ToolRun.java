package io.shardgate.it.tools;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** One finished run of an installed command-line tool (mariadb CLI, sysbench): exit code and output. */
public record ToolRun(List<String> command, int exitCode, String stdout, String stderr) {

    /** The executable's path when {@code name} is on the PATH. */
    public static Optional<Path> find(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Runs the command with no input; a run that outlives {@code timeout} is killed and reported as exit -1. */
    public static ToolRun run(Duration timeout, List<String> command) throws IOException, InterruptedException {
        return run(timeout, command, Path.of("/dev/null"));
    }

    /** Runs the command with {@code input} as its standard input (e.g. a dump file fed to the mariadb CLI). */
    public static ToolRun run(Duration timeout, List<String> command, Path input)
            throws IOException, InterruptedException {
        return run(timeout, command, input, null);
    }

    /**
     * Runs the command in {@code directory} (null: the current one), for tools that must start where
     * they live (MariaDB's {@code mysql-test-run}).
     */
    public static ToolRun run(Duration timeout, List<String> command, Path input, Path directory)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("tool-", ".out");
        Path err = Files.createTempFile("tool-", ".err");
        try {
            Process process = new ProcessBuilder(command)
                    .directory(directory == null ? null : directory.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(input.toFile()))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            int exit;
            try {
                if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    exit = process.exitValue();
                } else {
                    exit = -1;
                }
            } finally {
                // timed out, or the test was interrupted (its own timeout): no orphans left running,
                // children included (mysql-test-run's workers and their mysqltest)
                if (process.isAlive() || process.descendants().findAny().isPresent()) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            return new ToolRun(
                    List.copyOf(command),
                    exit,
                    // lenient: a client may echo a statement's raw bytes (binary data) in its error
                    new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
                    new String(Files.readAllBytes(err), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Override
    public String toString() {
        return String.join(" ", command) + "\nexit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
}
