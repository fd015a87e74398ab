package io.dupguard.redis;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmitThrottle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;

/**
 * {@link SubmitThrottle} in Redis (SPEC T3): {@code SET <prefix>{<scope>:<subject>} 1 NX PX <window>}
 * — the first submit of a window creates the key, every other submit finds it; Redis expires it when
 * the window ends. One round trip, standalone or Cluster. A store failure throws {@link
 * io.dupguard.StoreUnavailableException}, never "allowed". Thread-safe.
 */
public final class RedisSubmitThrottle implements SubmitThrottle, AutoCloseable {
    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "dupguard:thr:";

    private static final byte[] ONE = {'1'};

    private final RedisConnector redis;
    private final String prefix;

    private RedisSubmitThrottle(RedisConnector redis, String prefix) {
        this.redis = redis;
        this.prefix = RedisKeyPrefix.check(prefix, "keyPrefix");
    }

    /**
     * A throttle on standalone Redis (or Sentinel) under the key prefix {@value #DEFAULT_KEY_PREFIX}.
     * Connects lazily; the client stays the caller's to shut down.
     *
     * @param client the application's Lettuce client
     * @return thread-safe throttle
     * @throws NullPointerException if {@code client} is null
     */
    public static RedisSubmitThrottle create(RedisClient client) {
        return new RedisSubmitThrottle(RedisConnector.standalone(client, null), DEFAULT_KEY_PREFIX);
    }

    /**
     * A throttle on Redis Cluster under the key prefix {@value #DEFAULT_KEY_PREFIX}. Connects lazily; the
     * client stays the caller's to shut down.
     *
     * @param client the application's Lettuce cluster client
     * @return thread-safe throttle
     * @throws NullPointerException if {@code client} is null
     */
    public static RedisSubmitThrottle create(RedisClusterClient client) {
        return new RedisSubmitThrottle(RedisConnector.cluster(client), DEFAULT_KEY_PREFIX);
    }

    @Override
    public boolean tryAcquire(String scope, String subject, Duration window) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long millis = Math.max(1, Checks.millis(Checks.positive(window, "window")));
        String key = prefix + "{" + scope + ":" + subject + "}";
        String reply = redis.call(
                "throttle " + scope, c -> c.set(key, ONE, SetArgs.Builder.nx().px(millis)));
        return "OK".equals(reply);
    }

    @Override
    public void close() {
        redis.close();
    }
}
