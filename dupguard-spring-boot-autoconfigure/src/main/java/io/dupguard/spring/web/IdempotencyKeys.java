package io.dupguard.spring.web;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.spring.web.IdempotencyKeyFilter.Endpoint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.springframework.http.server.PathContainer;

/**
 * What the servlet and the WebFlux Idempotency-Key filters share: endpoint matching, the key's
 * syntax, the principal scoping, the request fingerprint and problem documents. Free of servlet
 * and reactive types, so each filter loads without the other's stack.
 */
final class IdempotencyKeys {
    private static final HexFormat HEX = HexFormat.of();

    /** Problem details both filters send. */
    static final String KEY_REUSED =
            "this key was already used with a different request (method, path or body); use a new key";

    static final String IN_FLIGHT = "a request with this key is still being processed; retry later";
    static final String STORE_DOWN = "the request was not processed; retry later";

    private IdempotencyKeys() {}

    static String notReplayable(StoredResponse stored, long maxStoredBodySize) {
        return "the request with this key was processed (status " + stored.status() + ") but its response ("
                + stored.tooLargeSize() + " bytes) exceeded dupguard.http.max-stored-body-size (" + maxStoredBodySize
                + " bytes), so it cannot be sent again; do not retry this request with a new key";
    }

    static String tooLarge(long limit) {
        return "requests with an idempotency key may carry at most " + limit
                + " bytes (dupguard.http.max-request-body-size)";
    }

    /** The first endpoint covering the request, or null. */
    static Endpoint endpoint(List<Endpoint> endpoints, String method, String path) {
        PathContainer container = null;
        for (Endpoint e : endpoints) {
            if (!e.methods().contains(method)) {
                continue;
            }
            if (container == null) {
                container = PathContainer.parsePath(path);
            }
            if (e.matches(method, container)) {
                return e;
            }
        }
        return null;
    }

    /** The characters of an unquoted key besides ASCII letters and digits: RFC 9110 tchar, ':', '/', '='. */
    static final String BARE_KEY_PUNCTUATION = "!#$%&'*+-.^_`|~:/=";

    /**
     * The key from the header value: an sf-string ({@code "..."}, RFC 8941, as the draft defines
     * the field: printable ASCII, {@code \"} and {@code \\} escaped) or, leniently, the bare token
     * clients often send: ASCII letters, digits and {@link #BARE_KEY_PUNCTUATION} (a UUID, a
     * base64 or base64url string). Anything else, an unterminated quoted string included, is refused.
     */
    static String parseKey(String raw, int maxLength, String header) {
        String v = raw.trim();
        String key;
        if (!v.isEmpty() && v.charAt(0) == '"') {
            if (v.length() < 2 || v.charAt(v.length() - 1) != '"' || endsWithEscape(v)) {
                throw new IllegalArgumentException(header + " starts a quoted string (RFC 8941 sf-string) that does"
                        + " not end with an unescaped quote");
            }
            StringBuilder out = new StringBuilder(v.length());
            for (int i = 1; i < v.length() - 1; i++) {
                char c = v.charAt(i);
                if (c == '\\') {
                    if (i + 1 >= v.length() - 1 || (v.charAt(i + 1) != '"' && v.charAt(i + 1) != '\\')) {
                        throw new IllegalArgumentException(header + " has a bad escape at position " + i);
                    }
                    c = v.charAt(++i);
                } else if (c == '"') {
                    throw new IllegalArgumentException(header + " has an unescaped quote at position " + i);
                }
                if (c < 0x20 || c > 0x7e) {
                    throw new IllegalArgumentException(header + " must be printable ASCII (RFC 8941 sf-string)");
                }
                out.append(c);
            }
            key = out.toString();
        } else {
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (!((c >= 'a' && c <= 'z')
                        || (c >= 'A' && c <= 'Z')
                        || (c >= '0' && c <= '9')
                        || BARE_KEY_PUNCTUATION.indexOf(c) >= 0)) {
                    throw new IllegalArgumentException(header + " has " + describe(c) + " at position " + i
                            + "; an unquoted key may hold ASCII letters, digits and " + BARE_KEY_PUNCTUATION
                            + ", anything else must be sent as a quoted string (RFC 8941 sf-string)");
                }
            }
            key = v;
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException(header + " must not be empty");
        }
        if (key.length() > maxLength) {
            throw new IllegalArgumentException(
                    header + " is " + key.length() + " characters long; at most " + maxLength + " are accepted");
        }
        return key;
    }

    /** Whether the closing quote of a quoted value is escaped (an odd run of backslashes before it). */
    private static boolean endsWithEscape(String v) {
        int backslashes = 0;
        for (int i = v.length() - 2; i > 0 && v.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    private static String describe(char c) {
        return c > 0x20 && c < 0x7f ? "'" + c + "'" : String.format("character U+%04X", (int) c);
    }

    /** The client part of a stored key: a hash of the principal (null: anonymous). */
    static String principalHash(String principal) {
        byte[] digest = sha256().digest(
                        (principal == null ? "\u0000anonymous" : "p:" + principal).getBytes(StandardCharsets.UTF_8));
        return HEX.formatHex(digest, 0, 16);
    }

    /** What makes two requests with one key "the same request": method, path, raw query and body. */
    static Fingerprint fingerprint(String method, String path, String query, byte[] body) {
        MessageDigest d = sha256();
        String head = method + "\n" + path.length() + ":" + path + "\n"
                + (query == null ? "-" : query.length() + ":" + query) + "\n";
        d.update(head.getBytes(StandardCharsets.UTF_8));
        d.update(body);
        return Fingerprint.ofHex(HEX.formatHex(d.digest()));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An RFC 9457 problem document. */
    static byte[] problemJson(String typeBase, String type, String title, int status, String detail) {
        String json = "{\"type\":" + json(typeBase + type) + ",\"title\":" + json(title) + ",\"status\":" + status
                + ",\"detail\":" + json(detail) + "}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    static String json(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
