package io.dupguard.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.curator.utils.PathUtils;

/**
 * Maps lock names to ZooKeeper paths. Not part of the public API.
 *
 * <p>A lock name is any 1–200 character string without control characters, but a ZooKeeper path
 * segment must not contain {@code /}, must not be {@code .} or {@code ..}, and must not contain
 * surrogates (every emoji), private-use or some other code points. So each name is
 * percent-encoded into one segment: RFC 3986 unreserved ASCII ({@code A–Z a–z 0–9 - . _ ~}) stays
 * as it is (readable nodes for plain names such as {@code order:42} → {@code order%3A42}), every
 * other UTF-8 byte becomes {@code %XX}. The encoding is injective ({@code %} itself is encoded),
 * so two different names never share a lock.
 */
final class LockPaths {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockPaths() {}

    /** Validates an absolute ZooKeeper path other than the root, without a trailing slash. */
    static String basePath(String path) {
        Objects.requireNonNull(path, "basePath must not be null");
        if (path.equals("/")) {
            throw new IllegalArgumentException("basePath must not be the root '/'");
        }
        try {
            return PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("basePath is not a valid ZooKeeper path: " + e.getMessage(), e);
        }
    }

    /** The node under which the lock's contenders queue: {@code basePath/encoded(name)}. */
    static String lockPath(String basePath, String name) {
        return basePath + '/' + segment(name);
    }

    /** One path segment that stands for {@code name}; see the class comment. */
    static String segment(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        // "." and ".." are reserved segments: encode their dots, which no other name produces.
        boolean onlyDots = name.equals(".") || name.equals("..");
        StringBuilder out = new StringBuilder(utf8.length + 16);
        for (byte b : utf8) {
            int c = b & 0xFF;
            if (!onlyDots && unreserved(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    private static boolean unreserved(int c) {
        return (c >= 'A' && c <= 'Z')
                || (c >= 'a' && c <= 'z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '.'
                || c == '_'
                || c == '~';
    }
}
