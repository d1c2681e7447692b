package io.shardgate.admin.store;

import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.common.PathUtils;

/**
 * Where one cluster's configuration lives in ZooKeeper.
 *
 * <pre>
 * {root}/version                      "7": the current version (ASCII decimal); compare-and-set
 * {root}/versions/0000000007          one node per retained version, no data
 * {root}/versions/0000000007/schemas  one node per section: the document's UTF-8 text
 * {root}/routers/{id}                 ephemeral, JSON of a {@link LiveRouter}
 * </pre>
 *
 * <p>A version's documents and the bump of {@code version} are written in one multi-op, so a
 * reader that sees {@code version = N} finds every document of N.
 */
record ZkLayout(String root) {
    ZkLayout {
        PathUtils.validatePath(root);
        if (root.equals("/")) {
            throw new IllegalArgumentException("the cluster root must not be / itself");
        }
    }

    String versionPointer() {
        return root + "/version";
    }

    String versions() {
        return root + "/versions";
    }

    String version(long number) {
        return versions() + "/" + versionNodeName(number);
    }

    String document(long number, String section) {
        return version(number) + "/" + section;
    }

    String routers() {
        return root + "/routers";
    }

    String router(String id) {
        return routers() + "/" + id;
    }

    /** Zero-padded so that ZooKeeper's listing and a person's eye sort versions alike. */
    static String versionNodeName(long number) {
        return String.format("%010d", number);
    }

    /** The number a versions/ child stands for, or -1 when the name is not one of ours. */
    static long parseVersionNodeName(String name) {
        if (name.length() != 10 || !name.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(name);
    }

    static byte[] encodeNumber(long number) {
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    /** The number held by the version node, or -1 when it holds anything but a positive number. */
    static long decodeNumber(byte[] data) {
        if (data == null || data.length == 0 || data.length > 19) {
            return -1;
        }
        for (byte b : data) {
            if (b < '0' || b > '9') {
                return -1;
            }
        }
        long n = Long.parseLong(new String(data, StandardCharsets.US_ASCII));
        return n >= 1 ? n : -1;
    }
}
