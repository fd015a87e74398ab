package io.dupguard.redis;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
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
 * <p>Each key is one string value named {@code <prefix>{<scope>:<key>}} (default prefix {@value
 * #DEFAULT_KEY_PREFIX}); the braces are a hash tag, so a record and anything later stored beside it
 * share one cluster slot. The value packs state ({@code P}/{@code C}/{@code F}), fingerprint, owner
 * token and payload ({@code P<fp>\n<owner>\n}, then {@code +<payload>} or {@code -} once finished).
 *
 * <p>Algorithm, each step one atomic round trip:
 *
 * <ol>
 *   <li><b>claim</b>: {@code SET key <P record> NX GET PX <lease>}, a native command (Redis 7.0+; an
 *       older server's refusal switches the store to an equivalent Lua script). Nothing returned:
 *       the caller has claimed the key ({@link Claim#FRESH}). Otherwise the existing record comes
 *       back in the same reply ({@link Claim.Existing}), unless it is this owner's own in-progress
 *       claim (a command re-sent after a reconnect), which counts as claimed.
 *   <li><b>complete</b> (Lua): if the record is in progress under the caller's owner token, rewrite
 *       it as {@code C} or {@code F} with the payload and the retention as TTL. If it is already
 *       finished under the same owner (a re-sent command), do nothing. If the key is absent (the
 *       lease ran out and nobody claimed the key since), re-create it finished: the work ran, and
 *       refusing its result would make a retry run it again. Only another owner's record (a real
 *       takeover) throws {@link LeaseLostException}.
 *   <li><b>release</b> (Lua): if in progress under the caller's owner, delete it.
 *   <li><b>renew</b> (Lua): if in progress under the caller's owner, {@code PEXPIRE} by the lease.
 *   <li><b>find</b>: {@code GET}.
 * </ol>
 *
 * <p>Batches ({@link #claimAll}, {@link #completeAll}, {@link #releaseAll}) of two keys or more
 * are one script each on standalone and Sentinel-managed Redis, which runs the single-key step for
 * every key of the batch (one command, where a command per key costs the server and the client a
 * command's parsing, dispatch and reply each; {@link Builder#batchScripts} turns this off behind a
 * key-sharding proxy). On Redis Cluster every key is its own hash tag, so a
 * batch spans slots and nodes: the single-key command or script goes for each key to its node,
 * pipelined (all written before any answer is awaited: one round trip of latency). With {@link
 * Builder#replicaAcks replicaAcks}, claims and completions go key by key, each waiting for its
 * replicas.
 *
 * <p>One string rather than a hash with a field each: the claim is then a single native command,
 * and complete one {@code GET} + {@code SET} inside its script. Measured against the earlier layout
 * (a hash, a script per claim), Redis spends about 15 % less CPU per fresh call and 25 % less per
 * duplicate (docs/benchmarks.md).
 *
 * <p>Expiry is Redis's own: the key's TTL is the lease while in progress and the retention once
 * finished. An owner that crashed leaves a key that simply disappears when its lease runs out, and
 * the next claim creates a fresh one; a takeover is therefore reported as {@link Claim#FRESH} (the
 * expired record is gone, not replaced). A late {@code complete} by the old owner fails if it finds
 * a different owner, and is recorded if it finds no record. Durations are sent in milliseconds; one beyond what Redis accepts
 * is treated as practically forever.
 *
 * <p>Failures: any Lettuce error (cannot connect, command timeout, server error) throws {@link
 * StoreUnavailableException}; no method answers "absent" without an answer from Redis. With {@link
 * Builder#replicaAcks(int, Duration) replicaAcks}, so does a claim, completion or renewal that too
 * few replicas acknowledged in time (a claim is released first). Command
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
    private final ReplicaAcks acks; // null: no WAIT
    // False once a server refused SET … NX GET (before Redis 7.0): the claim then runs as a script.
    private volatile boolean nativeClaim;
    /** {@link Builder#batchScripts}. */
    private final boolean batchScripts;

    private RedisIdempotencyStore(
            RedisConnector redis, String keyPrefix, ReplicaAcks acks, boolean nativeClaim, boolean batchScripts) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
        this.acks = acks;
        this.nativeClaim = nativeClaim;
        this.batchScripts = batchScripts;
    }

    /**
     * A store on standalone Redis at the client's default URI, with the default key prefix.
     *
     * @param client the Lettuce client, owned by the caller (closing the store leaves it open); not
     *     null
     * @return a thread-safe store
     */
    public static RedisIdempotencyStore create(RedisClient client) {
        return builder(client).build();
    }

    /**
     * A store on standalone or Sentinel-managed Redis at {@code uri}, with the default key prefix.
     *
     * @param client the Lettuce client, owned by the caller; not null
     * @param uri the server, or the Sentinel set and master name; not null
     * @return a thread-safe store
     */
    public static RedisIdempotencyStore create(RedisClient client, RedisURI uri) {
        return builder(client, uri).build();
    }

    /**
     * A store on Redis Cluster, with the default key prefix.
     *
     * @param client the Lettuce cluster client, owned by the caller; not null
     * @return a thread-safe store
     */
    public static RedisIdempotencyStore create(RedisClusterClient client) {
        return builder(client).build();
    }

    /**
     * Builder for standalone Redis at the client's default URI.
     *
     * @param client the Lettuce client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.standalone(client, null));
    }

    /**
     * Builder for standalone or Sentinel-managed Redis at {@code uri}.
     *
     * @param client the Lettuce client, owned by the caller; not null
     * @param uri the server, or the Sentinel set and master name; not null
     * @return a new builder
     */
    public static Builder builder(RedisClient client, RedisURI uri) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(uri, "uri");
        return new Builder(() -> RedisConnector.standalone(client, uri));
    }

    /**
     * Builder for Redis Cluster.
     *
     * @param client the Lettuce cluster client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(() -> RedisConnector.cluster(client));
    }

    @Override
    public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        checkOwner(owner);
        long leaseMillis = ttlMillis(lease, "lease");
        String redisKey = redisKey(key);
        byte[] claimed = PackedRecord.inProgress(fingerprint, owner);
        // Created, or this owner's own claim re-sent after a reconnect: either way the caller's.
        Predicate<byte[]> ours = existing -> existing == null || Arrays.equals(existing, claimed);
        Consumer<RedisClusterCommands<String, byte[]>> withdraw = c -> RedisConnector.<Long>evalOn(
                c, IdempotencyScripts.RELEASE, ScriptOutputType.INTEGER, new String[] {redisKey}, utf8(owner));
        byte[] existing = nativeClaim
                ? claimNatively(redisKey, claimed, leaseMillis, ours, withdraw)
                : scriptClaim(redisKey, claimed, leaseMillis, ours, withdraw);
        if (ours.test(existing)) {
            return Claim.FRESH;
        }
        return new Claim.Existing(unpack(key, existing));
    }

    private byte[] claimNatively(
            String redisKey,
            byte[] claimed,
            long leaseMillis,
            Predicate<byte[]> ours,
            Consumer<RedisClusterCommands<String, byte[]>> withdraw) {
        try {
            return redis.callAcked(
                    "claim", redisKey, acks, c -> setGet(c, redisKey, claimed, leaseMillis), ours, withdraw);
        } catch (StoreUnavailableException e) {
            if (refusedNativeClaim(e)) {
                nativeClaim = false;
                return scriptClaim(redisKey, claimed, leaseMillis, ours, withdraw);
            }
            throw e;
        }
    }

    /**
     * {@code SET key claimed NX GET PX lease}. Finding the caller's own record (the same claim sent
     * again) writes nothing, so with replica acks the claim then resets its lease: a {@code WAIT}
     * counts the replicas that have its connection's last write, and must count the record's (the
     * second send may travel on another connection than the first).
     */
    private byte[] setGet(RedisClusterCommands<String, byte[]> c, String redisKey, byte[] claimed, long leaseMillis) {
        byte[] existing = c.setGet(redisKey, claimed, SetArgs.Builder.nx().px(leaseMillis));
        if (acks != null
                && Arrays.equals(existing, claimed)
                && !Boolean.TRUE.equals(c.pexpire(redisKey, leaseMillis))) {
            // expired between the two commands: claim it again, which writes
            return c.setGet(redisKey, claimed, SetArgs.Builder.nx().px(leaseMillis));
        }
        return existing;
    }

    /** Before Redis 7.0, SET refuses NX together with GET, without running anything. */
    private static boolean refusedNativeClaim(StoreUnavailableException e) {
        return e.getCause() instanceof RedisCommandExecutionException refused
                && String.valueOf(refused.getMessage()).toLowerCase(Locale.ROOT).contains("syntax error");
    }

    private byte[] scriptClaim(
            String redisKey,
            byte[] claimed,
            long leaseMillis,
            Predicate<byte[]> ours,
            Consumer<RedisClusterCommands<String, byte[]>> withdraw) {
        return redis.evalAcked(
                IdempotencyScripts.CLAIM,
                ScriptOutputType.VALUE,
                new String[] {redisKey},
                acks,
                ours,
                withdraw,
                claimed,
                utf8(Long.toString(leaseMillis)));
    }

    @Override
    public void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        complete(key, null, owner, status, payload, retention);
    }

    /**
     * Finishes the owner's record; if its lease ran out and Redis dropped it, and nobody claimed the
     * key since, re-creates it finished from {@code fingerprint} (null: refuse instead).
     */
    @Override
    public void complete(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            RecordStatus status,
            byte[] payload,
            Duration retention) {
        if (!ownerWrite(
                IdempotencyScripts.COMPLETE,
                key,
                completionArgs(key, fingerprint, owner, status, payload, retention))) {
            throw leaseLost(key);
        }
    }

    private static byte[][] completionArgs(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            RecordStatus status,
            byte[] payload,
            Duration retention) {
        Objects.requireNonNull(key, "key");
        checkOwner(owner);
        Objects.requireNonNull(status, "status");
        if (status == RecordStatus.IN_PROGRESS) {
            throw new IllegalArgumentException("complete needs COMPLETED or FAILED, was " + status);
        }
        long retentionMillis = ttlMillis(retention, "retention");
        byte[] state = utf8(status == RecordStatus.COMPLETED ? "C" : "F");
        byte[] ttl = utf8(Long.toString(retentionMillis));
        // A null payload is sent as no argument at all, so it reads back as null, not as empty.
        byte[] fp = utf8(fingerprint == null ? "?" : fingerprint.hex());
        return payload == null
                ? new byte[][] {utf8(owner), state, ttl, fp}
                : new byte[][] {utf8(owner), state, ttl, fp, payload};
    }

    private static LeaseLostException leaseLost(IdempotencyKey key) {
        return new LeaseLostException(
                key.toString(), "claim on " + key + " ran out and was taken over by another caller");
    }

    /**
     * The completion sent without waiting: the caller's next command on the shared connection (its
     * next claim) travels behind it, one round trip for both. With {@code replicaAcks} the
     * completion is awaited as {@link #complete} does: its {@code WAIT} must run on its own connection.
     */
    @Override
    public CompletionStage<Void> completeAsync(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            RecordStatus status,
            byte[] payload,
            Duration retention) {
        if (acks != null) {
            return IdempotencyStore.super.completeAsync(key, fingerprint, owner, status, payload, retention);
        }
        byte[][] args = completionArgs(key, fingerprint, owner, status, payload, retention);
        return redis.<Long>evalAsync(
                        IdempotencyScripts.COMPLETE, ScriptOutputType.INTEGER, new String[] {redisKey(key)}, args)
                .thenApply(done -> {
                    if (!isOne(done)) {
                        throw leaseLost(key);
                    }
                    return null;
                });
    }

    /**
     * {@link #claim} of every entry: one script on one server, per entry pipelined on Redis Cluster
     * (with replicaAcks: key by key, each waiting for its replicas).
     */
    @Override
    public List<Claim> claimAll(List<BatchEntry> entries, String owner, Duration lease) {
        checkOwner(owner);
        if (acks != null) {
            // each claim waits for its replicas and is withdrawn alone: key by key
            return IdempotencyStore.super.claimAll(entries, owner, lease);
        }
        long leaseMillis = ttlMillis(lease, "lease");
        List<byte[]> claimed = new ArrayList<>(entries.size());
        List<String> keys = new ArrayList<>(entries.size());
        for (BatchEntry e : entries) {
            claimed.add(PackedRecord.inProgress(e.fingerprint(), owner));
            keys.add(redisKey(e.key()));
        }
        List<byte[]> existing;
        if (oneScript(keys)) {
            byte[][] args = new byte[claimed.size() + 1][];
            args[0] = utf8(Long.toString(leaseMillis));
            for (int i = 0; i < claimed.size(); i++) {
                args[i + 1] = claimed.get(i);
            }
            existing = redis.eval(
                    IdempotencyScripts.CLAIM_MANY, ScriptOutputType.MULTI, keys.toArray(String[]::new), args);
        } else if (nativeClaim) {
            List<Function<RedisClusterAsyncCommands<String, byte[]>, RedisFuture<byte[]>>> ops = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                String k = keys.get(i);
                byte[] v = claimed.get(i);
                ops.add(c -> c.setGet(k, v, SetArgs.Builder.nx().px(leaseMillis)));
            }
            try {
                existing = redis.pipeline("claim batch", ops);
            } catch (StoreUnavailableException e) {
                if (!refusedNativeClaim(e)) {
                    throw e;
                }
                nativeClaim = false;
                return claimAll(entries, owner, lease);
            }
        } else {
            byte[] ttl = utf8(Long.toString(leaseMillis));
            existing = redis.pipelineScript(
                    IdempotencyScripts.CLAIM,
                    ScriptOutputType.VALUE,
                    keys,
                    claimed.stream().map(v -> new byte[][] {v, ttl}).toList());
        }
        List<Claim> claims = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            byte[] found = existing.get(i);
            claims.add(
                    found == null || Arrays.equals(found, claimed.get(i))
                            ? Claim.FRESH
                            : new Claim.Existing(unpack(entries.get(i).key(), found)));
        }
        return claims;
    }

    /**
     * The completion script: for the whole batch in one script on one server, per key pipelined on
     * Redis Cluster; the keys another owner holds are returned.
     */
    @Override
    public Set<IdempotencyKey> completeAll(List<BatchCompletion> completions, String owner, Duration retention) {
        checkOwner(owner);
        if (acks != null) {
            return IdempotencyStore.super.completeAll(completions, owner, retention);
        }
        byte[] ttl = utf8(Long.toString(ttlMillis(retention, "retention")));
        List<String> keys = new ArrayList<>(completions.size());
        for (BatchCompletion c : completions) {
            keys.add(redisKey(c.key()));
        }
        if (oneScript(keys)) {
            byte[][] all = new byte[2 + 3 * completions.size()][];
            all[0] = utf8(owner);
            all[1] = ttl;
            int a = 2;
            for (BatchCompletion c : completions) {
                all[a++] = utf8(c.status() == RecordStatus.COMPLETED ? "C" : "F");
                all[a++] = utf8(c.fingerprint().hex());
                all[a++] = body(c.payload());
            }
            List<Long> done = redis.eval(
                    IdempotencyScripts.COMPLETE_MANY, ScriptOutputType.MULTI, keys.toArray(String[]::new), all);
            return lost(completions, done);
        }
        List<byte[][]> args = new ArrayList<>(completions.size());
        for (BatchCompletion c : completions) {
            args.add(new byte[][] {
                utf8(owner),
                utf8(c.status() == RecordStatus.COMPLETED ? "C" : "F"),
                ttl,
                utf8(c.fingerprint().hex()),
                c.payload()
            });
        }
        return lost(
                completions, redis.pipelineScript(IdempotencyScripts.COMPLETE, ScriptOutputType.INTEGER, keys, args));
    }

    /** The keys of {@code completions} whose answer in {@code done} is not 1 (another owner holds them). */
    private static Set<IdempotencyKey> lost(List<BatchCompletion> completions, List<Long> done) {
        Set<IdempotencyKey> lost = new LinkedHashSet<>();
        for (int i = 0; i < completions.size(); i++) {
            if (done.get(i) == null || done.get(i) != 1L) {
                lost.add(completions.get(i).key());
            }
        }
        return lost;
    }

    /** The release script: for the whole batch in one script on one server, per key pipelined on Redis Cluster. */
    @Override
    public void releaseAll(List<IdempotencyKey> keys, String owner) {
        checkOwner(owner);
        byte[][] args = {utf8(owner)};
        List<String> redisKeys = keys.stream().map(this::redisKey).toList();
        if (oneScript(redisKeys)) {
            redis.<Long>eval(
                    IdempotencyScripts.RELEASE_MANY, ScriptOutputType.INTEGER, redisKeys.toArray(String[]::new), args);
            return;
        }
        redis.pipelineScript(
                IdempotencyScripts.RELEASE,
                ScriptOutputType.INTEGER,
                redisKeys,
                keys.stream().map(k -> args).toList());
    }

    /**
     * Whether a batch of {@code keys} goes to the server as one script: two keys or more on one
     * server (standalone or Sentinel-managed), unless {@link Builder#batchScripts} is off. On Redis
     * Cluster every key is its own hash tag, so a batch spans slots and nodes, and each key is sent
     * as its own command, pipelined.
     */
    private boolean oneScript(List<String> keys) {
        return batchScripts && keys.size() > 1 && !redis.clustered();
    }

    /** A completed record's body: {@code -} for a null payload, else {@code +<payload>}. */
    private static byte[] body(byte[] payload) {
        if (payload == null) {
            return utf8("-");
        }
        byte[] body = new byte[payload.length + 1];
        body[0] = '+';
        System.arraycopy(payload, 0, body, 1, payload.length);
        return body;
    }

    @Override
    public void release(IdempotencyKey key, String owner) {
        Objects.requireNonNull(key, "key");
        checkOwner(owner);
        redis.<Long>eval(IdempotencyScripts.RELEASE, ScriptOutputType.INTEGER, redisKey(key), utf8(owner));
    }

    @Override
    public boolean renew(IdempotencyKey key, String owner, Duration lease) {
        Objects.requireNonNull(key, "key");
        checkOwner(owner);
        long leaseMillis = ttlMillis(lease, "lease");
        return ownerWrite(IdempotencyScripts.RENEW, key, utf8(owner), utf8(Long.toString(leaseMillis)));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        String redisKey = redisKey(key);
        byte[] value = redis.call("find", c -> c.get(redisKey));
        return value == null ? Optional.empty() : Optional.of(unpack(key, value));
    }

    /**
     * The key prefix this store writes under.
     *
     * @return the key prefix; never null
     */
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
    /** Tests: the store's connection, for writes of their own on the store's connections. */
    RedisConnector connector() {
        return redis;
    }

    String redisKey(IdempotencyKey key) {
        return keyPrefix + "{" + key.scope() + ":" + key.key() + "}";
    }

    private IdempotencyRecord unpack(IdempotencyKey key, byte[] value) {
        try {
            return PackedRecord.unpack(key, value);
        } catch (IllegalArgumentException e) {
            throw unreadable(key, e.getMessage());
        }
    }

    // Not an outage, but the store cannot tell whether the operation ran, which callers must
    // treat the same way: never as "absent".
    private StoreUnavailableException unreadable(IdempotencyKey key, String why) {
        return new StoreUnavailableException(
                RedisConnector.STORE, "unreadable record at " + redisKey(key) + ": " + why, null);
    }

    /**
     * Runs a complete or renew script, answering 1 if it wrote. With replica acks, an unreplicated
     * write is not withdrawn: a completion's work ran, and a renewal still holds on the master; the
     * caller retries either (Idempotency a completion while the lease holds, the watchdog a renewal).
     */
    private boolean ownerWrite(RedisScript script, IdempotencyKey key, byte[]... args) {
        Long done = redis.evalAcked(
                script,
                ScriptOutputType.INTEGER,
                new String[] {redisKey(key)},
                acks,
                RedisIdempotencyStore::isOne,
                c -> {},
                args);
        return isOne(done);
    }

    private static boolean isOne(Long answer) {
        return answer != null && answer == 1L;
    }

    private static void checkOwner(String owner) {
        Checks.text(owner, 64, "owner"); // no newline: it delimits the packed record
    }

    // At least 1 ms: a positive sub-millisecond duration must not become PEXPIRE 0, which deletes.
    private static long ttlMillis(Duration d, String field) {
        return Math.min(Math.max(Checks.millis(Checks.positive(d, field)), 1L), MAX_TTL_MILLIS);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Options of a {@link RedisIdempotencyStore}; {@link #build()} does not connect yet. */
    public static final class Builder {
        private final Supplier<RedisConnector> connector;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private boolean nativeClaim = true;
        private EvictionPolicyCheck evictionCheck = EvictionPolicyCheck.REFUSE;
        private ReplicaAcks acks;
        private boolean batchScripts = true;

        private Builder(Supplier<RedisConnector> connector) {
            this.connector = connector;
        }

        /**
         * Prefix of every key the store writes; default {@value
         * RedisIdempotencyStore#DEFAULT_KEY_PREFIX}. Not blank, no whitespace, control characters or
         * braces (the store adds its own hash tag).
         *
         * @param keyPrefix the key prefix; not null
         * @return this builder
         * @throws IllegalArgumentException if {@code keyPrefix} is blank or has whitespace, control
         *     characters or braces
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeyPrefix.check(keyPrefix, "keyPrefix");
            return this;
        }

        /** Tests: claim with the script used before Redis 7.0, as if the server had refused the native form. */
        Builder scriptClaim() {
            this.nativeClaim = false;
            return this;
        }

        /**
         * What to do if the server may evict keys (default {@link EvictionPolicyCheck#REFUSE}):
         * checked once per connection with {@code CONFIG GET maxmemory-policy}.
         *
         * @param check the reaction to an evicting server; not null
         * @return this builder
         */
        public Builder evictionPolicyCheck(EvictionPolicyCheck check) {
            this.evictionCheck = Objects.requireNonNull(check, "evictionPolicyCheck");
            return this;
        }

        /**
         * Waits for replicas after every write that counts (default: no waiting). After a claim that
         * took the key, a completion and a renewal, the store sends {@code WAIT replicas timeout} on
         * the connection that wrote. If fewer than {@code replicas} replicas acknowledge in time,
         * the call throws {@link StoreUnavailableException} (the write is not known to be on a
         * replica, so a failover could lose it): a claim is released first, so nothing ran and the
         * key is free for a retry; a completion or renewal stays on the master and is retried by
         * its caller ({@code Idempotency} retries a completion while the lease holds).
         *
         * <p>What it buys: a claim that succeeded is on at least {@code replicas} replicas, so a
         * failover to one of them keeps it. What it does not: {@code WAIT} makes no write
         * synchronous. Sentinel promotes the replica with the best replication offset, which has
         * every acknowledged write only as long as an acknowledging replica is among the
         * candidates; if every replica that acknowledged is down or cut off when the master fails,
         * a promoted replica can still lack the claim. A connection that drops between a write and
         * its {@code WAIT} (whose re-sent {@code WAIT} would count the new connection's writes only)
         * makes the write count as not acknowledged.
         *
         * <p>Cost: one more round trip per write, plus the replicas' answer. A write and its {@code
         * WAIT} use a connection of their own (a {@code WAIT} blocks its connection), so the store
         * keeps one more connection per concurrent write (docs/benchmarks.md).
         * Keep {@code timeout} well below the client's command timeout ({@link RedisURI#setTimeout},
         * 60 s by default), which otherwise cuts the {@code WAIT} short as an outage.
         *
         * @param replicas how many replicas must acknowledge each write; at least 1
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
         * Whether a batch of two keys or more is one script on standalone and Sentinel-managed
         * Redis (default true). Turn it off behind anything that spreads keys over several servers
         * without being a Redis Cluster the client sees — twemproxy, Envoy's {@code redis_proxy},
         * a sharded Redis Enterprise or Azure Cache database without the OSS Cluster API: such a
         * proxy routes a script by its first key, so the other keys of the batch would be written
         * to the wrong server (or refused with {@code CROSSSLOT}). Off, each key is its own command,
         * pipelined, as on Redis Cluster (one round trip of latency; more work for the server and
         * the client per key).
         *
         * @param batchScripts false to send batches key by key
         * @return this builder
         */
        public Builder batchScripts(boolean batchScripts) {
            this.batchScripts = batchScripts;
            return this;
        }

        /**
         * Builds the store; connects on first use.
         *
         * @return the thread-safe store
         */
        public RedisIdempotencyStore build() {
            return new RedisIdempotencyStore(
                    connector.get().evictionCheck(evictionCheck), keyPrefix, acks, nativeClaim, batchScripts);
        }
    }
}
