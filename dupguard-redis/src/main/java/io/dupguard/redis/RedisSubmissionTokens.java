package io.dupguard.redis;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmissionTokens;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

/**
 * {@link SubmissionTokens} in Redis (SPEC T1), standalone or Cluster.
 *
 * <ol>
 *   <li>Issue: {@code SET <prefix>{<scope>:<sha256(token)>} <subject> NX PX <ttl>} — only the hash of
 *       the token is in the key, and Redis expires it.
 *   <li>Consume: one script — delete the key only if it holds this subject; 1 ⇒ the first submit.
 *       Redis runs scripts one at a time, so of any number of concurrent submits exactly one gets 1;
 *       another subject's attempt leaves the token in place.
 * </ol>
 *
 * <p>A store failure throws {@link io.dupguard.StoreUnavailableException}. Thread-safe; {@link
 * #close()} closes the connection it opened, not the client.
 */
public final class RedisSubmissionTokens implements SubmissionTokens, AutoCloseable {
    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "dupguard:tok:";

    private static final RedisScript CONSUME = RedisScript.of(
            "consume token",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end return 0");

    private final RedisConnector redis;
    private final String prefix;

    private RedisSubmissionTokens(RedisConnector redis, String prefix) {
        this.redis = redis;
        this.prefix = RedisKeyPrefix.check(prefix, "keyPrefix");
    }

    /**
     * Tokens on standalone Redis (or Sentinel) under the key prefix {@value #DEFAULT_KEY_PREFIX}.
     * Connects lazily; the client stays the caller's to shut down.
     *
     * @param client the application's Lettuce client
     * @return thread-safe tokens
     * @throws NullPointerException if {@code client} is null
     */
    public static RedisSubmissionTokens create(RedisClient client) {
        return new RedisSubmissionTokens(RedisConnector.standalone(client, null), DEFAULT_KEY_PREFIX);
    }

    /**
     * Tokens on Redis Cluster under the key prefix {@value #DEFAULT_KEY_PREFIX}. Connects lazily; the
     * client stays the caller's to shut down.
     *
     * @param client the application's Lettuce cluster client
     * @return thread-safe tokens
     * @throws NullPointerException if {@code client} is null
     */
    public static RedisSubmissionTokens create(RedisClusterClient client) {
        return new RedisSubmissionTokens(RedisConnector.cluster(client), DEFAULT_KEY_PREFIX);
    }

    @Override
    public String issue(String scope, String subject, Duration ttl) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long ttlMillis = Math.max(1, Checks.millis(Checks.positive(ttl, "ttl")));
        String token = Tokens.newToken();
        String key = key(scope, token);
        byte[] value = subject.getBytes(StandardCharsets.UTF_8);
        redis.call("issue token", c -> c.set(key, value, SetArgs.Builder.nx().px(ttlMillis)));
        return token;
    }

    @Override
    public boolean consume(String scope, String subject, String token) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        Long deleted = redis.eval(
                CONSUME, ScriptOutputType.INTEGER, key(scope, token), subject.getBytes(StandardCharsets.UTF_8));
        return deleted != null && deleted == 1L;
    }

    private String key(String scope, String token) {
        return prefix + "{" + scope + ":" + sha256(token) + "}";
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must support SHA-256", e);
        }
    }

    @Override
    public void close() {
        redis.close();
    }
}
