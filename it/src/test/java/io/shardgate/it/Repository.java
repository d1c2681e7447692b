package io.shardgate.it;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the source checkout the tests check (deploy/, docs/, the root pom); tests run in {@code it/}. */
public final class Repository {
    private Repository() {}

    /** The checkout's root directory: the parent of the {@code it} module. */
    public static Path root() {
        Path root = Path.of("").toAbsolutePath().getParent();
        if (root == null || !Files.isRegularFile(root.resolve("mvnw")) || !Files.isDirectory(root.resolve("it"))) {
            throw new IllegalStateException("tests must run with the it module as working directory, not "
                    + Path.of("").toAbsolutePath());
        }
        return root;
    }

    /** A path relative to the checkout's root. */
    public static Path file(String relative) {
        return root().resolve(relative);
    }
}
