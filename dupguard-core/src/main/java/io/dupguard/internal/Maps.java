package io.dupguard.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;

/**
 * Hash maps and sets sized for a known number of entries, so that a batch's bookkeeping does not
 * rehash as it fills (JDK 19's {@code HashMap.newHashMap}, for Java 17). Internal API: not for
 * applications; it may change in any release.
 */
public final class Maps {
    private Maps() {}

    /**
     * The table size at which {@code size} entries fit under the default load factor.
     *
     * @param size the number of entries expected, not negative
     * @return the initial capacity to pass to a hash map or set
     */
    public static int capacity(int size) {
        return (int) Math.ceil(size / 0.75);
    }

    /**
     * A hash map for {@code size} entries.
     *
     * @param <K> the key type
     * @param <V> the value type
     * @param size the number of entries expected, not negative
     * @return an empty map that holds {@code size} entries without rehashing
     */
    public static <K, V> HashMap<K, V> hashMap(int size) {
        return new HashMap<>(capacity(size));
    }

    /**
     * A linked hash map for {@code size} entries.
     *
     * @param <K> the key type
     * @param <V> the value type
     * @param size the number of entries expected, not negative
     * @return an empty map that holds {@code size} entries without rehashing
     */
    public static <K, V> LinkedHashMap<K, V> linkedHashMap(int size) {
        return new LinkedHashMap<>(capacity(size));
    }

    /**
     * A hash set for {@code size} elements.
     *
     * @param <E> the element type
     * @param size the number of elements expected, not negative
     * @return an empty set that holds {@code size} elements without rehashing
     */
    public static <E> HashSet<E> hashSet(int size) {
        return new HashSet<>(capacity(size));
    }
}
