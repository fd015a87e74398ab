package io.dupguard.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small LRU of completed results with a time-to-live, guarded by one lock: it only serves
 * replays, which are rare next to first calls, so contention is not a concern.
 */
public final class LocalResultCache<K, V> {
    private final int maxSize;
    private final LinkedHashMap<K, Entry<V>> map;

    private record Entry<V>(V value, long expiresAtMillis) {}

    public LocalResultCache(int maxSize) {
        this.maxSize = maxSize;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, Entry<V>> eldest) {
                return size() > LocalResultCache.this.maxSize;
            }
        };
    }

    public synchronized V get(K key, long nowMillis) {
        Entry<V> e = map.get(key);
        if (e == null) {
            return null;
        }
        if (nowMillis >= e.expiresAtMillis) {
            map.remove(key);
            return null;
        }
        return e.value;
    }

    public synchronized void put(K key, V value, long expiresAtMillis) {
        map.put(key, new Entry<>(value, expiresAtMillis));
    }

    public synchronized void remove(K key) {
        map.remove(key);
    }
}
