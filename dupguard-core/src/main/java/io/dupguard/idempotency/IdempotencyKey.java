package io.dupguard.idempotency;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.internal.Checks;
import java.text.Normalizer;
import java.util.Locale;

/**
 * Identifies one operation: the same scope and key mean the same operation (guarantee K1).
 *
 * <p>The <b>scope</b> separates namespaces, tenants or callers ({@code "payments"}, {@code
 * "tenant-42.orders"}): 1–{@value #MAX_SCOPE_LENGTH} characters of {@code [A-Za-z0-9._-]}. The
 * <b>key</b> is the business identifier ({@code source + seq}, {@code user_id + request_id}, an
 * order number): after Unicode NFC normalisation 1–{@value #MAX_KEY_LENGTH} characters, not blank,
 * no control characters. Nothing is trimmed or truncated; a bad key throws {@link
 * InvalidIdentifierException}.
 *
 * <p>Comparison is exact by default, so {@code DB00x} and {@code Db00X} are different operations
 * (guarantee K6). {@link #ofIgnoringCase} folds the key to lower case (locale-independent) for
 * identifiers that are case-insensitive by nature. The stores compare keys byte for byte (binary
 * collation in the shipped DDL), so the choice made here is the one that counts.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class IdempotencyKey {
    /** Longest key accepted, in characters after normalisation. */
    public static final int MAX_KEY_LENGTH = 255;
    /** Longest scope accepted, in characters. */
    public static final int MAX_SCOPE_LENGTH = 64;

    private final String scope;
    private final String key;

    private IdempotencyKey(String scope, String key) {
        this.scope = scope;
        this.key = key;
    }

    /**
     * Key compared exactly (after NFC normalisation).
     *
     * @param scope the namespace (an endpoint or operation); not null
     * @param key the business key within the scope; not null
     * @return the key
     * @throws InvalidIdentifierException if scope or key is null, blank, too long or malformed
     */
    public static IdempotencyKey of(String scope, String key) {
        return new IdempotencyKey(checkScope(scope), checkKey(normalise(key)));
    }

    /**
     * Key folded to lower case ({@link Locale#ROOT}) so that {@code DB00x} and {@code Db00X} are
     * the same operation.
     *
     * @param scope the namespace (an endpoint or operation); not null
     * @param key the business key within the scope; not null
     * @return the key, folded to lower case
     * @throws InvalidIdentifierException if scope or key is null, blank, too long or malformed
     */
    public static IdempotencyKey ofIgnoringCase(String scope, String key) {
        String normalised = normalise(key);
        return new IdempotencyKey(
                checkScope(scope), checkKey(normalised == null ? null : normalised.toLowerCase(Locale.ROOT)));
    }

    private static String normalise(String key) {
        if (key == null) {
            return null;
        }
        // Below U+0300 no character takes part in canonical composition, so such a string is
        // already NFC; most business keys are ASCII, and this skips the normaliser for them.
        for (int i = 0; i < key.length(); i++) {
            if (key.charAt(i) >= '\u0300') {
                return Normalizer.normalize(key, Normalizer.Form.NFC);
            }
        }
        return key;
    }

    private static String checkKey(String key) {
        return Checks.text(key, MAX_KEY_LENGTH, "idempotency key");
    }

    private static String checkScope(String scope) {
        Checks.text(scope, MAX_SCOPE_LENGTH, "scope");
        if (!plainScope(scope)) {
            throw new InvalidIdentifierException("scope must match [A-Za-z0-9._-]+, was '" + scope + "'");
        }
        return scope;
    }

    // A loop, not the regex: this runs on every call of a hot path.
    private static boolean plainScope(String scope) {
        for (int i = 0; i < scope.length(); i++) {
            char c = scope.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * The namespace of the key.
     *
     * @return the scope; never null
     */
    public String scope() {
        return scope;
    }

    /**
     * The normalised business key.
     *
     * @return the key, normalised; never null
     */
    public String key() {
        return key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdempotencyKey other && scope.equals(other.scope) && key.equals(other.key);
    }

    @Override
    public int hashCode() {
        return 31 * scope.hashCode() + key.hashCode();
    }

    /** {@code scope/key}, for messages and logs. */
    @Override
    public String toString() {
        return scope + "/" + key;
    }
}
