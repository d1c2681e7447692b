package io.shardgate.it.mtr;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the output of each {@code mysql-test-run} of {@link MtrSubsetIT} is kept after the test's
 * temporary directory is gone: {@code target/mtr-runs/<start time>/<run>/} (or under {@code
 * -Dmtr.keep.dir}), with the runner's whole output and, of each failed test, its {@code log/}
 * directory and its {@code .reject} file (the runner writes that one next to the suite's {@code
 * .result}, where the next run overwrites it). A failure that happened once must stay readable.
 */
final class MtrRunArchive {
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final Path root;

    private MtrRunArchive(Path root) {
        this.root = root;
    }

    /** A new archive directory for the runs that start now. */
    static MtrRunArchive startingNow() {
        Path base = Path.of(System.getProperty("mtr.keep.dir", "target/mtr-runs"));
        return new MtrRunArchive(base.resolve(STAMP.format(Instant.now())).toAbsolutePath());
    }

    Path root() {
        return root;
    }

    /**
     * Keeps run {@code name}: its {@code vardir}'s output file and log directories of {@code
     * failed} tests ({@code main.name}), and their {@code .reject} files from {@code suiteDir}'s
     * {@code main/} written since {@code started}. Returns where it went.
     */
    Path keep(String name, Path vardir, Path suiteDir, List<String> failed, Instant started) {
        Path to = root.resolve(name);
        try {
            Files.createDirectories(to);
            Path output = vardir.resolve("mtr-output.txt");
            if (Files.exists(output)) {
                Files.copy(output, to.resolve("mtr-output.txt"), StandardCopyOption.REPLACE_EXISTING);
            }
            for (String test : failed) {
                String file = test.contains(" ") ? test.substring(0, test.indexOf(' ')) : test; // a combination
                copyTree(vardir.resolve("log").resolve(file), to.resolve("log").resolve(file));
                Path reject = suiteDir.resolve("main").resolve(file.substring(file.indexOf('.') + 1) + ".reject");
                if (Files.exists(reject) && Files.getLastModifiedTime(reject).compareTo(FileTime.from(started)) >= 0) {
                    Files.copy(reject, to.resolve(reject.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not keep the mtr output of " + name + " in " + to, e);
        }
        return to;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
