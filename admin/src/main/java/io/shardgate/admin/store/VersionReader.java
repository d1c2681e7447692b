package io.shardgate.admin.store;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * Reads one version's documents back from ZooKeeper. Whatever is malformed (a node written by hand,
 * a foreign tool) becomes a problem to report, never an exception that would leave a router without
 * a verdict.
 */
final class VersionReader {
    /** The documents read, or the problems that make the version unusable. */
    record Result(ConfigDocuments documents, List<String> problems) {
        Result {
            problems = List.copyOf(problems);
        }
    }

    private final CuratorFramework client;
    private final ZkLayout layout;

    VersionReader(CuratorFramework client, ZkLayout layout) {
        this.client = client;
        this.layout = layout;
    }

    /**
     * Reads version {@code number}.
     *
     * @throws KeeperException.NoNodeException when the version or one of its documents is absent
     */
    Result read(long number) throws Exception {
        List<String> sections = client.getChildren().forPath(layout.version(number));
        List<String> problems = new ArrayList<>();
        TreeMap<String, String> texts = new TreeMap<>();
        if (sections.isEmpty()) {
            problems.add("version " + number + " has no documents");
        }
        for (String section : sections) {
            String nameProblem = ConfigDocuments.sectionNameProblem(section);
            if (nameProblem != null) {
                problems.add(nameProblem);
                continue;
            }
            byte[] data = client.getData().forPath(layout.document(number, section));
            try {
                texts.put(section, decodeUtf8(data));
            } catch (CharacterCodingException e) {
                problems.add("section " + section + " is not valid UTF-8 text");
            }
        }
        return new Result(problems.isEmpty() ? new ConfigDocuments(texts) : null, problems);
    }

    /** Strict: a document that is not UTF-8 is refused, not repaired with replacement characters. */
    private static String decodeUtf8(byte[] data) throws CharacterCodingException {
        if (data == null) {
            return "";
        }
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(data))
                .toString();
    }
}
