package io.dupguard.internal;

import io.dupguard.idempotency.IdempotencyKey;
import java.util.Comparator;

/**
 * The one order in which a batch takes its keys: by scope, then key, each in code point order —
 * the byte order of their UTF-8, as {@code COLLATE "C"} on PostgreSQL and a binary column on
 * MySQL/MariaDB sort them. Every caller and store that takes a batch's keys in this order locks
 * shared keys in the same order, so two batches that meet on keys cannot deadlock. Not part of the
 * public API.
 */
public final class KeyOrder {
    /** Scope, then key, in code point order. */
    public static final Comparator<IdempotencyKey> KEYS = (a, b) -> {
        int byScope = compare(a.scope(), b.scope());
        return byScope != 0 ? byScope : compare(a.key(), b.key());
    };

    private KeyOrder() {}

    /**
     * Compares UTF-16 strings in code point order: a surrogate (a character above U+FFFF) sorts
     * above U+E000–U+FFFF, where {@link String#compareTo} puts it below.
     *
     * @param a a string; not null
     * @param b a string; not null
     * @return negative, zero or positive as {@code a} sorts before, with or after {@code b}
     */
    public static int compare(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                return fixUp(x) - fixUp(y);
            }
        }
        return a.length() - b.length();
    }

    private static int fixUp(char c) {
        if (c < 0xD800) {
            return c;
        }
        return c >= 0xE000 ? c - 0x800 : c + 0x2000;
    }
}
