package io.dupguard.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * SHA-256 of a request's canonical bytes. A second request with the same {@link IdempotencyKey}
 * but a different fingerprint (say, a different amount) is refused with {@link
 * PayloadMismatchException} instead of replaying the first result (SPEC K3).
 *
 * <p>{@link #none()} opts out of the check. Instances are immutable and thread-safe.
 */
public final class Fingerprint {
    private static final Fingerprint NONE = new Fingerprint("");
    private static final HexFormat HEX = HexFormat.of();

    private final String hex;

    private Fingerprint(String hex) {
        this.hex = hex;
    }

    /** No fingerprint: duplicates are not checked for a different payload. */
    public static Fingerprint none() {
        return NONE;
    }

    /** SHA-256 of the given bytes. */
    public static Fingerprint of(byte[] canonicalBytes) {
        Objects.requireNonNull(canonicalBytes, "canonicalBytes");
        return new Fingerprint(HEX.formatHex(sha256().digest(canonicalBytes)));
    }

    /** SHA-256 of the UTF-8 bytes of a string. */
    public static Fingerprint ofString(String canonical) {
        Objects.requireNonNull(canonical, "canonical");
        return of(canonical.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * SHA-256 of a map in canonical form: entries sorted by key, nested maps and collections
     * encoded recursively, every string length-prefixed so that no two different maps share an
     * encoding. Values other than maps and collections are encoded by {@code toString()}, so pass
     * values whose {@code toString()} is stable (numbers as {@code BigDecimal#toPlainString()} if
     * scale may vary).
     */
    public static Fingerprint ofFields(Map<String, ?> fields) {
        Objects.requireNonNull(fields, "fields");
        StringBuilder out = new StringBuilder();
        canonical(fields, out);
        return ofString(out.toString());
    }

    /**
     * Rebuilds a fingerprint read back from a store.
     *
     * @param hex 64 lower-case hex characters, or empty for {@link #none()}
     */
    public static Fingerprint ofHex(String hex) {
        if (hex == null || hex.isEmpty()) {
            return NONE;
        }
        if (hex.length() != 64 || !hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new IllegalArgumentException("fingerprint must be 64 lower-case hex characters, was '" + hex + "'");
        }
        return new Fingerprint(hex);
    }

    /** 64 lower-case hex characters, or empty for {@link #none()}. */
    public String hex() {
        return hex;
    }

    /** Whether this is {@link #none()}. */
    public boolean isNone() {
        return hex.isEmpty();
    }

    /** Two fingerprints conflict when both are present and differ. */
    public boolean conflictsWith(Fingerprint other) {
        return !isNone() && !other.isNone() && !hex.equals(other.hex);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint other && hex.equals(other.hex);
    }

    @Override
    public int hashCode() {
        return hex.hashCode();
    }

    @Override
    public String toString() {
        return isNone() ? "Fingerprint[none]" : "Fingerprint[" + hex.substring(0, 12) + "…]";
    }

    private static void canonical(Object value, StringBuilder out) {
        if (value == null) {
            out.append('n');
        } else if (value instanceof Map<?, ?> map) {
            TreeMap<String, Object> sorted = new TreeMap<>();
            map.forEach((k, v) -> sorted.put(String.valueOf(k), v));
            out.append('{').append(sorted.size()).append(':');
            sorted.forEach((k, v) -> {
                string(k, out);
                canonical(v, out);
            });
            out.append('}');
        } else if (value instanceof Collection<?> items) {
            List<Object> list = new ArrayList<>(items);
            out.append('[').append(list.size()).append(':');
            list.forEach(item -> canonical(item, out));
            out.append(']');
        } else {
            out.append('s');
            string(value.toString(), out);
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append(s.length()).append(':').append(s);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must support SHA-256", e);
        }
    }
}
