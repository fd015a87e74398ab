package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
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
import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@link SubmissionTokens} in Redis (guarantee T1), standalone, Sentinel or Cluster.
 *
 * <ol>
 *   <li>Issue: {@code SET <prefix>{<scope>:<sha256(token)>} <subject> NX PX <ttl>} — only the hash of
 *       the token is in the key, and Redis expires it.
 *   <li>Claim ({@link #execute execute}, {@link #claim claim}): one script — if the key holds this
 *       subject and no lease key {@code <key>:lease} exists, {@code SET <key>:lease <owner> PX
 *       <lease>} (same hash slot) and keep the token at least as long. Complete deletes both keys if
 *       the lease is the caller's (or ran out with nobody taking over), release deletes the lease
 *       key; a lease that runs out (a dead process) leaves the token usable again.
 *   <li>Consume in one call: one script — delete the key only if it holds this subject and no lease
 *       holds it, answering its remaining TTL; a positive answer ⇒ the first submit. <b>A failed
 *       attempt burns the token.</b>
 * </ol>
 *
 * <p>Redis runs scripts one at a time, so of any number of concurrent submits exactly one wins;
 * another subject's attempt leaves the token in place.
 *
 * <p>With {@link Builder#replicaAcks replicaAcks}, an issue, a claim and a one-call consume each
 * wait for replicas; if too few acknowledge, an issued token is deleted again, a claim released and
 * a consumed token put back with its remaining TTL (best effort), and the call throws {@link
 * StoreUnavailableException}. A two-phase completion waits too, and is sent again within the lease
 * when too few replicas acknowledge.
 *
 * <p>A store failure throws {@link StoreUnavailableException}. Thread-safe; {@link #close()} closes
 * the connection it opened, not the client.
 */
public final class RedisSubmissionTokens implements SubmissionTokens, AutoCloseable {
    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "dupguard:tok:";

    /** KEYS: token, lease. ARGV: subject. Deletes a free token of this subject; answers its TTL (0: refused). */
    private static final RedisScript CONSUME = RedisScript.of(
            "consume token",
            """
            if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('EXISTS', KEYS[2]) == 0 then
              local ttl = redis.call('PTTL', KEYS[1])
              redis.call('DEL', KEYS[1])
              return math.max(ttl, 1)
            end
            return 0
            """);

    /**
     * KEYS: token, lease, original expiry. ARGV: subject, owner, lease ms. Marks a free token of this
     * subject in use. A token that would expire before the lease ends lives as long as the lease, and
     * its own expiry (server time, ms) is kept beside it so a release gives it back.
     */
    private static final RedisScript CLAIM = RedisScript.of(
            "claim token",
            """
            if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('EXISTS', KEYS[2]) == 0 then
              redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
              local ttl = redis.call('PTTL', KEYS[1])
              if ttl >= 0 and ttl < tonumber(ARGV[3]) then
                local t = redis.call('TIME')
                local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
                redis.call('SET', KEYS[3], tostring(now + ttl), 'PX', ARGV[3])
                redis.call('PEXPIRE', KEYS[1], ARGV[3])
              end
              return 1
            end
            return 0
            """);

    /**
     * KEYS: token, lease, original expiry. ARGV: owner, lease ms. Extends the owner's lease, and the
     * token with it where it would end first, keeping the token's own expiry for the release.
     */
    private static final RedisScript RENEW = RedisScript.of(
            "renew token lease",
            """
            if redis.call('GET', KEYS[2]) == ARGV[1] then
              redis.call('PEXPIRE', KEYS[2], ARGV[2])
              local ttl = redis.call('PTTL', KEYS[1])
              if ttl >= 0 and ttl < tonumber(ARGV[2]) then
                if redis.call('EXISTS', KEYS[3]) == 1 then
                  redis.call('PEXPIRE', KEYS[3], ARGV[2])
                else
                  local t = redis.call('TIME')
                  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
                  redis.call('SET', KEYS[3], tostring(now + ttl), 'PX', ARGV[2])
                end
                redis.call('PEXPIRE', KEYS[1], ARGV[2])
              end
              return 1
            end
            return 0
            """);

    /**
     * KEYS: token, lease. ARGV: owner. The owner's work ran, so the token is deleted whoever holds it
     * now (no later attempt may run the work again); 1 if the owner held it, or nobody did and the
     * token was still there; 0 if another owner holds it or it was already spent.
     */
    private static final RedisScript COMPLETE = RedisScript.of(
            "complete token",
            """
            local holder = redis.call('GET', KEYS[2])
            local existed = redis.call('DEL', KEYS[1])
            redis.call('DEL', KEYS[3])
            if holder == ARGV[1] then
              redis.call('DEL', KEYS[2])
              return 1
            end
            if not holder then
              return existed
            end
            return 0
            """);

    /**
     * KEYS: token, lease, original expiry. ARGV: owner. Deletes the owner's lease and gives the token
     * back its own expiry (deleting it if that has passed while it was in use).
     */
    private static final RedisScript RELEASE = RedisScript.of(
            "release token",
            """
            if redis.call('GET', KEYS[2]) == ARGV[1] then
              redis.call('DEL', KEYS[2])
              local deadline = redis.call('GET', KEYS[3])
              if deadline then
                redis.call('DEL', KEYS[3])
                local t = redis.call('TIME')
                local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
                local left = tonumber(deadline) - now
                if left > 0 then
                  redis.call('PEXPIRE', KEYS[1], left)
                else
                  redis.call('DEL', KEYS[1])
                end
              end
              return 1
            end
            return 0
            """);

    private final RedisConnector redis;
    private final String prefix;
    private final ReplicaAcks acks; // null: no WAIT

    private RedisSubmissionTokens(RedisConnector redis, String prefix, ReplicaAcks acks) {
        this.redis = redis;
        this.prefix = RedisKeyPrefix.check(prefix, "keyPrefix");
        this.acks = acks;
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
        return builder(client).build();
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
        return builder(client).build();
    }

    /**
     * Builder for standalone Redis, or Sentinel, at the client's default URI.
     *
     * @param client the application's Lettuce client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.standalone(client, null));
    }

    /**
     * Builder for Redis Cluster.
     *
     * @param client the application's Lettuce cluster client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.cluster(client));
    }

    @Override
    public String issue(String scope, String subject, Duration ttl) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long ttlMillis = Math.max(1, Checks.millis(Checks.positive(ttl, "ttl")));
        String token = Tokens.newToken();
        String key = key(scope, token);
        byte[] value = subject.getBytes(StandardCharsets.UTF_8);
        redis.callAcked(
                "issue token",
                key,
                acks,
                c -> c.set(key, value, SetArgs.Builder.nx().px(ttlMillis)),
                // Always followed by WAIT: nil is this SET sent again after a reconnect (the token is
                // new), which the WAIT then reports as not acknowledged instead of handing out a
                // token no replica may have.
                reply -> true,
                c -> RedisConnector.<Long>evalOn(c, CONSUME, ScriptOutputType.INTEGER, keys(key), value));
        return token;
    }

    @Override
    public boolean consume(String scope, String subject, String token) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        String key = key(scope, token);
        byte[] value = subject.getBytes(StandardCharsets.UTF_8);
        long[] ttl = new long[1];
        Long consumed = redis.evalAcked(
                CONSUME,
                ScriptOutputType.INTEGER,
                keys(key),
                acks,
                left -> (ttl[0] = left == null ? 0 : left) > 0,
                // Put back: a submit that fails here may be retried with the same token. A consume
                // that failed itself left no time to live to put back with: the token stays spent.
                c -> {
                    if (ttl[0] > 0) {
                        c.set(key, value, SetArgs.Builder.nx().px(ttl[0]));
                    }
                },
                value);
        return consumed != null && consumed > 0;
    }

    @Override
    public boolean tryLease(String scope, String subject, String token, String owner, Duration lease) {
        long leaseMillis = Tokens.checkClaim(scope, subject, owner, lease);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        String[] keys = keys(key(scope, token));
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        Long claimed = redis.evalAcked(
                CLAIM,
                ScriptOutputType.INTEGER,
                keys,
                acks,
                answer -> answer != null && answer == 1,
                c -> RedisConnector.<Long>evalOn(c, RELEASE, ScriptOutputType.INTEGER, keys, ownerBytes),
                subject.getBytes(StandardCharsets.UTF_8),
                ownerBytes,
                Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII));
        return claimed != null && claimed == 1;
    }

    @Override
    public boolean leased(String scope, String token) {
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        String leaseKey = keys(key(scope, token))[1];
        Long exists = redis.call("read token lease", c -> c.exists(leaseKey));
        return exists != null && exists > 0;
    }

    @Override
    public boolean renewLease(String scope, String token, String owner, Duration lease) {
        long leaseMillis = Math.max(1, Checks.millis(Checks.positive(lease, "lease")));
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        Long renewed = redis.eval(
                RENEW,
                ScriptOutputType.INTEGER,
                keys(key(scope, token)),
                owner.getBytes(StandardCharsets.UTF_8),
                Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII));
        return renewed != null && renewed == 1;
    }

    @Override
    public boolean completeLease(String scope, String token, String owner) {
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        // With replicaAcks the deletion waits for the replicas too: a failover that lost it would
        // bring the token back, and with it a second run of the work. Nothing to undo if too few
        // acknowledge; the completion is sent again within the lease.
        Long completed = redis.evalAcked(
                COMPLETE,
                ScriptOutputType.INTEGER,
                keys(key(scope, token)),
                acks,
                answer -> true,
                c -> {},
                owner.getBytes(StandardCharsets.UTF_8));
        return completed != null && completed > 0;
    }

    @Override
    public void releaseLease(String scope, String token, String owner) {
        if (Tokens.wellFormed(token)) {
            redis.eval(
                    RELEASE, ScriptOutputType.INTEGER, keys(key(scope, token)), owner.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The token's key, its lease key and its original expiry while leased, in one hash slot. */
    private static String[] keys(String key) {
        return new String[] {key, key + ":lease", key + ":until"};
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

    /** Options of {@link RedisSubmissionTokens}; {@link #build()} does not connect yet. */
    public static final class Builder {
        private final Supplier<RedisConnector> connector;
        private ReplicaAcks acks;

        private Builder(Supplier<RedisConnector> connector) {
            this.connector = connector;
        }

        /**
         * {@code WAIT replicas timeout} after each issue and each consume (default: no waiting); too
         * few acknowledgements undo the write and throw {@link StoreUnavailableException}. What it
         * buys and its residual risk are those of {@link RedisIdempotencyStore.Builder#replicaAcks}:
         * a consumed token that reached a replica stays consumed across a failover to it.
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
         * Builds the tokens; connects on first use.
         *
         * @return thread-safe tokens
         */
        public RedisSubmissionTokens build() {
            return new RedisSubmissionTokens(connector.get(), DEFAULT_KEY_PREFIX, acks);
        }
    }
}
