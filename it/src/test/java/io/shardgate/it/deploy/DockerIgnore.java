package io.shardgate.it.deploy;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code .dockerignore} as Docker reads it: one pattern per line ({@code #} comments, blank lines
 * skipped), {@code !} re-includes, the last pattern that matches a path or one of its parent
 * directories decides. Globs as Java's ({@code *} stays within a path segment, {@code **} crosses
 * them), which agrees with Docker's for the patterns this repository uses.
 */
record DockerIgnore(List<Rule> rules) {
    record Rule(PathMatcher matcher, boolean exclude) {}

    static DockerIgnore read(Path file) {
        List<Rule> rules = new ArrayList<>();
        for (String line : ComposeFiles.read(file).split("\n")) {
            String pattern = line.strip();
            if (pattern.isEmpty() || pattern.startsWith("#")) {
                continue;
            }
            boolean exclude = !pattern.startsWith("!");
            pattern = exclude ? pattern : pattern.substring(1).strip();
            pattern = pattern.startsWith("/") ? pattern.substring(1) : pattern;
            rules.add(new Rule(FileSystems.getDefault().getPathMatcher("glob:" + pattern), exclude));
        }
        return new DockerIgnore(List.copyOf(rules));
    }

    /** Whether a path of the build context (relative, e.g. {@code deploy/image/x.yaml}) is left out. */
    boolean excludes(String relative) {
        boolean excluded = false;
        for (Rule rule : rules) {
            for (Path p = Path.of(relative); p != null; p = p.getParent()) {
                if (rule.matcher().matches(p)) {
                    excluded = rule.exclude();
                    break;
                }
            }
        }
        return excluded;
    }
}
