package io.dupguard.redis;

/**
 * Key layout of the Redis lock backends. For lock {@code name} under prefix {@code p}:
 *
 * <ul>
 *   <li>{@code p{name}} — the lock: a string holding the owner token, with the lease as its TTL;
 *   <li>{@code p{name}:fence} — the fencing counter; never expires, so tokens stay monotonic;
 *   <li>{@code p{name}:waiters} — set while a refused caller may be waiting, so that a release
 *       publishes only when someone listens;
 *   <li>{@code p{name}:released} — the pub/sub channel a release is announced on.
 * </ul>
 *
 * <p>The braces are a hash tag: all keys of one lock hash to one Redis Cluster slot, which every
 * multi-key script needs. The tag is the text between our {@code '{'} and the first {@code '}'}
 * after it, so a name containing {@code '}'} still gives all its keys the same tag, except a name
 * that <em>starts</em> with {@code '}'}: its tag would be empty, and Redis then hashes each whole
 * key (to different slots). Such names, and names starting with the escape character {@code
 * '\'}, get a {@code '\'} in front; the mapping stays one-to-one.
 */
final class LockKeys {
    private final String prefix;

    LockKeys(String prefix) {
        this.prefix = prefix;
    }

    String prefix() {
        return prefix;
    }

    String lock(String name) {
        char first = name.charAt(0);
        String tag = first == '}' || first == '\\' ? "\\" + name : name;
        return prefix + "{" + tag + "}";
    }

    String fence(String name) {
        return lock(name) + ":fence";
    }

    String waiters(String name) {
        return lock(name) + ":waiters";
    }

    String channel(String name) {
        return lock(name) + ":released";
    }
}
