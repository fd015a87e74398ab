package io.dupguard.idempotency;

import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * SHA-256 of a request's canonical bytes. A second request with the same {@link IdempotencyKey}
 * but a different fingerprint (say, a different amount) is refused with {@link
 * PayloadMismatchException} instead of replaying the first result (guarantee K3).
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

    /**
     * No fingerprint: duplicates are not checked for a different payload.
     *
     * @return the shared empty fingerprint
     */
    public static Fingerprint none() {
        return NONE;
    }

    /**
     * SHA-256 of the given bytes.
     *
     * @param canonicalBytes the request's canonical encoding; not null
     * @return the fingerprint
     */
    public static Fingerprint of(byte[] canonicalBytes) {
        Objects.requireNonNull(canonicalBytes, "canonicalBytes");
        return new Fingerprint(HEX.formatHex(sha256().digest(canonicalBytes)));
    }

    /**
     * SHA-256 of the UTF-8 bytes of a string.
     *
     * @param canonical the request's canonical text; not null
     * @return the fingerprint
     */
    public static Fingerprint ofString(String canonical) {
        Objects.requireNonNull(canonical, "canonical");
        return of(exactBytes(canonical));
    }

    /**
     * UTF-8 for well-formed text (so fingerprints stay what they always were); malformed UTF-16
     * (a lone surrogate, which UTF-8 would turn into {@code ?}) as a 0xFF marker, never found in
     * UTF-8, followed by the UTF-16 code units — so {@code "k\uD800"} and {@code "k\uDBFF"} differ.
     */
    private static byte[] exactBytes(String s) {
        if (wellFormed(s)) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        byte[] out = new byte[1 + 2 * s.length()];
        out[0] = (byte) 0xFF;
        for (int i = 0; i < s.length(); i++) {
            out[1 + 2 * i] = (byte) (s.charAt(i) >>> 8);
            out[2 + 2 * i] = (byte) s.charAt(i);
        }
        return out;
    }

    /** Whether {@code s} has no lone surrogate. */
    static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * SHA-256 of a map in canonical form, the same in every JVM for equal content:
     *
     * <ul>
     *   <li>map entries sorted by {@code String.valueOf(key)} (two keys that print alike are
     *       refused, since one would hide the other);
     *   <li>sets in a canonical order (by their elements' encodings), whatever their iteration order
     *       ({@code Set.of} differs between JVMs, {@code HashSet} by capacity); lists and arrays in
     *       their own order;
     *   <li>every string length-prefixed, so that no two different maps share an encoding.
     * </ul>
     *
     * <p>Other values are encoded by {@code toString()}, so pass values whose {@code toString()} is
     * stable (numbers as {@code BigDecimal#toPlainString()} if scale may vary; no objects with an
     * identity-based {@code toString()}).
     *
     * @param fields the request's fields by name; not null, encoded as described above
     * @return the fingerprint
     * @throws IllegalArgumentException if two keys of one map print alike
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
     * @return the fingerprint
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

    /**
     * 64 lower-case hex characters, or empty for {@link #none()}.
     *
     * @return the hex digest, or the empty string; never null
     */
    public String hex() {
        return hex;
    }

    /**
     * Whether this is {@link #none()}.
     *
     * @return true if this is the empty fingerprint
     */
    public boolean isNone() {
        return hex.isEmpty();
    }

    /**
     * Two fingerprints conflict when both are present and differ.
     *
     * @param other the fingerprint to compare with; not null
     * @return true if both are present and differ
     */
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
            map.forEach((k, v) -> {
                String name = String.valueOf(k);
                if (sorted.containsKey(name)) {
                    throw new IllegalArgumentException(
                            "two map keys print as '" + name + "'; fingerprint fields need distinct names");
                }
                sorted.put(name, v);
            });
            out.append('{').append(sorted.size()).append(':');
            sorted.forEach((k, v) -> {
                string(k, out);
                canonical(v, out);
            });
            out.append('}');
        } else if (value instanceof Set<?> set) {
            List<String> encoded = new ArrayList<>(set.size());
            for (Object item : set) {
                StringBuilder one = new StringBuilder();
                canonical(item, one);
                encoded.add(one.toString());
            }
            Collections.sort(encoded);
            out.append('[').append(encoded.size()).append(':');
            encoded.forEach(out::append);
            out.append(']');
        } else if (value instanceof Collection<?> items) {
            List<Object> list = new ArrayList<>(items);
            out.append('[').append(list.size()).append(':');
            list.forEach(item -> canonical(item, out));
            out.append(']');
        } else if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            out.append('[').append(n).append(':');
            for (int i = 0; i < n; i++) {
                canonical(Array.get(value, i), out);
            }
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
