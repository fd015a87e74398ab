package io.dupguard.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script with its SHA-1 computed here once, so that every call can be an {@code EVALSHA}
 * without a {@code SCRIPT LOAD} round trip (the server hashes the same bytes, so the digests agree).
 *
 * @param name short name for error messages ("claim", "complete", ...)
 * @param source the Lua source
 * @param sha1 lower-case hex SHA-1 of the UTF-8 source
 */
record RedisScript(String name, String source, String sha1) {

    RedisScript {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(sha1, "sha1");
    }

    static RedisScript of(String name, String source) {
        return new RedisScript(name, source, sha1(source));
    }

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must support SHA-1", e);
        }
    }
}
