package io.shardgate.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.Repository;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Relative links between the operators' docs resolve, in the source tree as in the tarball. */
public class DocsLinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");

    /** Relative link targets of a markdown file that do not exist. */
    public static List<String> brokenLinks(Path markdown) throws IOException {
        List<String> broken = new ArrayList<>();
        Matcher m = LINK.matcher(Files.readString(markdown));
        while (m.find()) {
            String target = m.group(1);
            if (!target.contains("://") && !Files.exists(markdown.resolveSibling(target))) {
                broken.add(markdown.getFileName() + " -> " + target);
            }
        }
        return broken;
    }

    @Test
    void everyRelativeLinkOfTheDocsResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        try (Stream<Path> pages = Files.list(Repository.file("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).toList()) {
                broken.addAll(brokenLinks(page));
            }
        }
        broken.addAll(brokenLinks(Repository.file("README.md")));
        assertThat(broken).isEmpty();
    }
}
