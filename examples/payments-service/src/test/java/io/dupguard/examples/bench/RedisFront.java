package io.dupguard.examples.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The Redis half of the hand-written filters: one round trip per step.
 *
 * <ol>
 *   <li>{@link #claim}: {@code SET key "-" NX PX 30000}; a key already there is read with {@code GET}.
 *   <li>{@link #complete}: {@code SET key answer PX 86400000}.
 *   <li>{@link #release}: {@code DEL key}, so a retry runs again.
 * </ol>
 *
 * <p>One shared connection (Lettuce's is thread-safe and pipelines concurrent commands).
 */
final class RedisFront {
    /** The value of a key whose first request is still running. */
    static final String IN_PROGRESS = "-";

    private final RedisCommands<String, String> redis;

    RedisFront(RedisClient client) {
        this.redis = client.connect().sync();
    }

    /** Null if this call claimed the key; else what the key holds ({@link #IN_PROGRESS} while in flight). */
    String claim(String key) {
        if ("OK".equals(redis.set(key, IN_PROGRESS, SetArgs.Builder.nx().px(30_000)))) {
            return null;
        }
        String held = redis.get(key);
        return held == null ? IN_PROGRESS : held; // expired between the two commands: treat as in flight
    }

    void complete(String key, String answer) {
        redis.set(key, answer, SetArgs.Builder.px(86_400_000));
    }

    void release(String key) {
        redis.del(key);
    }
}
