package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmitThrottle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * {@link SubmitThrottle} in Redis (guarantee T3): {@code SET <prefix>{<scope>:<subject>} 1 NX PX <window>}
 * — the first submit of a window creates the key, every other submit finds it; Redis expires it when
 * the window ends. One round trip, standalone, Sentinel or Cluster. A store failure throws {@link
 * StoreUnavailableException}, never "allowed". Thread-safe.
 *
 * <p>With {@link Builder#replicaAcks replicaAcks}, a submit that opened a window waits for replicas;
 * if too few acknowledge, the window's key is deleted again (only if it is still this submit's) and
 * the submit throws {@link StoreUnavailableException} instead of being allowed.
 */
public final class RedisSubmitThrottle implements SubmitThrottle, AutoCloseable {
    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "dupguard:thr:";

    private static final byte[] ONE = {'1'};
    private static final RedisScript DELETE_IF_SAME = RedisScript.of(
            "withdraw window",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0");

    private final RedisConnector redis;
    private final String prefix;
    private final ReplicaAcks acks; // null: no WAIT

    private RedisSubmitThrottle(RedisConnector redis, String prefix, ReplicaAcks acks) {
        this.redis = redis;
        this.prefix = RedisKeyPrefix.check(prefix, "keyPrefix");
        this.acks = acks;
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
        return builder(client).build();
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
        return builder(client).build();
    }

    /**
     * Builder for a throttle on standalone Redis, or Sentinel, at the client's default URI.
     *
     * @param client the application's Lettuce client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.standalone(client, null));
    }

    /**
     * Builder for a throttle on Redis Cluster.
     *
     * @param client the application's Lettuce cluster client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.cluster(client));
    }

    @Override
    public boolean tryAcquire(String scope, String subject, Duration window) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long millis = Math.max(1, Checks.millis(Checks.positive(window, "window")));
        String key = prefix + "{" + scope + ":" + subject + "}";
        // A value of its own, so that withdrawing never deletes a later window of another submit.
        byte[] value = acks == null
                ? ONE
                : Long.toHexString(ThreadLocalRandom.current().nextLong()).getBytes(StandardCharsets.US_ASCII);
        String reply = redis.callAcked(
                "throttle " + scope,
                key,
                acks,
                c -> c.set(key, value, SetArgs.Builder.nx().px(millis)),
                "OK"::equals,
                c -> RedisConnector.<Long>evalOn(
                        c, DELETE_IF_SAME, ScriptOutputType.INTEGER, new String[] {key}, value));
        return "OK".equals(reply);
    }

    @Override
    public void close() {
        redis.close();
    }

    /** Options of {@link RedisSubmitThrottle}; {@link #build()} does not connect yet. */
    public static final class Builder {
        private final Supplier<RedisConnector> connector;
        private ReplicaAcks acks;

        private Builder(Supplier<RedisConnector> connector) {
            this.connector = connector;
        }

        /**
         * {@code WAIT replicas timeout} after each submit that opens a window (default: no waiting);
         * too few acknowledgements delete the window again and throw {@link
         * StoreUnavailableException}. What it buys and its residual risk are those of {@link
         * RedisIdempotencyStore.Builder#replicaAcks}.
         *
         * @param replicas how many replicas must acknowledge; at least 1
         * @param timeout how long to wait for them; positive, at most 30 s
         * @return this builder
         * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} is not
         *     positive or above 30 s
         */
        public Builder replicaAcks(int replicas, Duration timeout) {
            this.acks = ReplicaAcks.of(replicas, timeout);
            return this;
        }

        /**
         * Builds the throttle; connects on first use.
         *
         * @return a thread-safe throttle
         */
        public RedisSubmitThrottle build() {
            return new RedisSubmitThrottle(connector.get(), DEFAULT_KEY_PREFIX, acks);
        }
    }
}
