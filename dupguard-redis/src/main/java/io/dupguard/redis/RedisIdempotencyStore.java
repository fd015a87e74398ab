package io.dupguard.redis;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@link IdempotencyStore} on Redis (standalone, Sentinel through a Sentinel {@link RedisURI}, or
 * Redis Cluster) over Lettuce.
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create("redis://localhost:6379");
 * RedisIdempotencyStore store = RedisIdempotencyStore.create(client);
 * Idempotency idempotency = Idempotency.of(store);
 * }</pre>
 *
 * <p>Each key is one hash named {@code <prefix>{<scope>:<key>}} (default prefix {@value
 * #DEFAULT_KEY_PREFIX}); the braces are a hash tag, so a record and anything later stored beside
 * it share one cluster slot. Fields: {@code st} ({@code P}/{@code C}/{@code F}), {@code fp}
 * (fingerprint hex, empty for none), {@code own} (owner token of the claim), {@code pl} (payload).
 *
 * <p>Algorithm, each step one Lua script (one atomic round trip, {@code EVALSHA} with {@code EVAL}
 * on NOSCRIPT):
 *
 * <ol>
 *   <li><b>claim</b>: if the hash does not exist, create it with {@code st=P}, the fingerprint and
 *       the owner, and {@code PEXPIRE} it by the lease; the caller has claimed the key ({@link
 *       Claim#FRESH}). Otherwise return the live record ({@link Claim.Existing}), unless it is this
 *       owner's own in-progress claim (a command re-sent after a reconnect), which counts as claimed.
 *   <li><b>complete</b>: if {@code st=P} and {@code own} is the caller, set {@code st} to {@code C}
 *       or {@code F}, store the payload and {@code PEXPIRE} by the retention. If the record is already
 *       finished under the same owner (a re-sent command), do nothing. Otherwise throw {@link
 *       LeaseLostException}.
 *   <li><b>release</b>: if {@code st=P} and {@code own} is the caller, delete the hash.
 *   <li><b>renew</b>: if {@code st=P} and {@code own} is the caller, {@code PEXPIRE} by the lease.
 *   <li><b>find</b>: {@code HGETALL} (a single command, atomic by itself).
 * </ol>
 *
 * <p>Expiry is Redis's own: the key's TTL is the lease while in progress and the retention once
 * finished. An owner that crashed leaves a key that simply disappears when its lease runs out, and
 * the next claim creates a fresh one; a takeover is therefore reported as {@link Claim#FRESH} (the
 * expired record is gone, not replaced). A late {@code complete} by the old owner finds a different
 * owner (or no record) and fails. Durations are sent in milliseconds; one beyond what Redis accepts
 * is treated as practically forever.
 *
 * <p>Failures: any Lettuce error (cannot connect, command timeout, server error) throws {@link
 * StoreUnavailableException}; no method answers "absent" without an answer from Redis. Command
 * timeouts, reconnect and TLS are the {@code RedisClient}'s settings ({@link RedisURI#setTimeout},
 * {@code ClientOptions}).
 *
 * <p>Thread-safe. The store opens one shared connection lazily on first use (so it can be built
 * while Redis is down) and {@link #close()} closes that connection, never the client.
 */
public final class RedisIdempotencyStore implements IdempotencyStore, AutoCloseable {
    /** Prefix of every key the store writes unless configured otherwise. */
    public static final String DEFAULT_KEY_PREFIX = "dupguard:idem:";

    // Redis rejects a PEXPIRE whose deadline overflows a signed 64-bit millisecond clock.
    private static final long MAX_TTL_MILLIS = Long.MAX_VALUE / 2;

    private final RedisConnector redis;
    private final String keyPrefix;

    private RedisIdempotencyStore(RedisConnector redis, String keyPrefix) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    /** A store on standalone Redis at the client's default URI, with the default key prefix. */
    public static RedisIdempotencyStore create(RedisClient client) {
        return builder(client).build();
    }

    /** A store on standalone or Sentinel-managed Redis at {@code uri}, with the default key prefix. */
    public static RedisIdempotencyStore create(RedisClient client, RedisURI uri) {
        return builder(client, uri).build();
    }

    /** A store on Redis Cluster, with the default key prefix. */
    public static RedisIdempotencyStore create(RedisClusterClient client) {
        return builder(client).build();
    }

    /** Builder for standalone Redis at the client's default URI. */
    public static Builder builder(RedisClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.standalone(client, null));
    }

    /** Builder for standalone or Sentinel-managed Redis at {@code uri}. */
    public static Builder builder(RedisClient client, RedisURI uri) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(uri, "uri");
        return new Builder(() -> RedisConnector.standalone(client, uri));
    }

    /** Builder for Redis Cluster. */
    public static Builder builder(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.cluster(client));
    }

    @Override
    public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(owner, "owner");
        long leaseMillis = ttlMillis(lease, "lease");
        List<Object> found = redis.eval(
                IdempotencyScripts.CLAIM,
                ScriptOutputType.MULTI,
                redisKey(key),
                utf8(fingerprint.hex()),
                utf8(owner),
                utf8(Long.toString(leaseMillis)));
        if (found.isEmpty()) {
            return Claim.FRESH;
        }
        return new Claim.Existing(toRecord(key, field(found, 0), field(found, 1), field(found, 2), field(found, 3)));
    }

    @Override
    public void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(status, "status");
        if (status == RecordStatus.IN_PROGRESS) {
            throw new IllegalArgumentException("complete needs COMPLETED or FAILED, was " + status);
        }
        long retentionMillis = ttlMillis(retention, "retention");
        byte[] state = utf8(status == RecordStatus.COMPLETED ? "C" : "F");
        byte[] ttl = utf8(Long.toString(retentionMillis));
        // A null payload is sent as no argument at all, so it reads back as null, not as empty.
        byte[][] args = payload == null
                ? new byte[][] {utf8(owner), state, ttl}
                : new byte[][] {utf8(owner), state, ttl, payload};
        Long done = redis.eval(IdempotencyScripts.COMPLETE, ScriptOutputType.INTEGER, redisKey(key), args);
        if (done == null || done != 1L) {
            throw new LeaseLostException(key.toString(), "claim on " + key + " is no longer held by this caller");
        }
    }

    @Override
    public void release(IdempotencyKey key, String owner) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        redis.<Long>eval(IdempotencyScripts.RELEASE, ScriptOutputType.INTEGER, redisKey(key), utf8(owner));
    }

    @Override
    public boolean renew(IdempotencyKey key, String owner, Duration lease) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        long leaseMillis = ttlMillis(lease, "lease");
        Long renewed = redis.eval(
                IdempotencyScripts.RENEW,
                ScriptOutputType.INTEGER,
                redisKey(key),
                utf8(owner),
                utf8(Long.toString(leaseMillis)));
        return renewed != null && renewed == 1L;
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        String redisKey = redisKey(key);
        Map<String, byte[]> fields = redis.call("find", c -> c.hgetall(redisKey));
        if (fields == null || fields.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(toRecord(key, fields.get("st"), fields.get("fp"), fields.get("own"), fields.get("pl")));
    }

    /** The key prefix this store writes under. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** Closes the connection this store opened, if any; the client stays open. */
    @Override
    public void close() {
        redis.close();
    }

    @Override
    public String toString() {
        return "RedisIdempotencyStore[keyPrefix=" + keyPrefix + "]";
    }

    /**
     * {@code <prefix>{<scope>:<key>}}. Unambiguous because the scope never contains ':'. A key
     * containing '}' shortens the hash tag, which is harmless: every script touches one key only.
     */
    String redisKey(IdempotencyKey key) {
        return keyPrefix + "{" + key.scope() + ":" + key.key() + "}";
    }

    private IdempotencyRecord toRecord(IdempotencyKey key, byte[] st, byte[] fp, byte[] own, byte[] payload) {
        RecordStatus status = status(key, st);
        Fingerprint fingerprint;
        try {
            fingerprint = Fingerprint.ofHex(fp == null ? "" : text(fp));
        } catch (IllegalArgumentException e) {
            throw unreadable(key, e.getMessage());
        }
        String owner = status == RecordStatus.IN_PROGRESS && own != null ? text(own) : null;
        return new IdempotencyRecord(
                key, status, fingerprint, owner, status == RecordStatus.IN_PROGRESS ? null : payload);
    }

    private RecordStatus status(IdempotencyKey key, byte[] st) {
        String state = st == null ? "" : text(st);
        return switch (state) {
            case "P" -> RecordStatus.IN_PROGRESS;
            case "C" -> RecordStatus.COMPLETED;
            case "F" -> RecordStatus.FAILED;
            default -> throw unreadable(key, "unknown state '" + state + "'");
        };
    }

    // Not an outage, but the store cannot tell whether the operation ran, which callers must
    // treat the same way: never as "absent".
    private StoreUnavailableException unreadable(IdempotencyKey key, String why) {
        return new StoreUnavailableException(
                RedisConnector.STORE, "unreadable record at " + redisKey(key) + ": " + why, null);
    }

    private static byte[] field(List<Object> found, int index) {
        return index < found.size() && found.get(index) instanceof byte[] bytes ? bytes : null;
    }

    // At least 1 ms: a positive sub-millisecond duration must not become PEXPIRE 0, which deletes.
    private static long ttlMillis(Duration d, String field) {
        return Math.min(Math.max(Checks.millis(Checks.positive(d, field)), 1L), MAX_TTL_MILLIS);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Options of a {@link RedisIdempotencyStore}; {@link #build()} does not connect yet. */
    public static final class Builder {
        private final Supplier<RedisConnector> connector;
        private String keyPrefix = DEFAULT_KEY_PREFIX;

        private Builder(Supplier<RedisConnector> connector) {
            this.connector = connector;
        }

        /**
         * Prefix of every key the store writes; default {@value
         * RedisIdempotencyStore#DEFAULT_KEY_PREFIX}. Not blank, no whitespace, control characters or
         * braces (the store adds its own hash tag).
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeyPrefix.check(keyPrefix, "keyPrefix");
            return this;
        }

        public RedisIdempotencyStore build() {
            return new RedisIdempotencyStore(connector.get(), keyPrefix);
        }
    }
}
