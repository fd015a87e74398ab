package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.spi.AbstractLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@link LockProvider} on one Redis (standalone, Sentinel through a Sentinel {@link RedisURI}, or
 * Redis Cluster) over Lettuce.
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create("redis://localhost:6379");
 * RedisLockProvider locks = RedisLockProvider.create(client);
 * try (Lease lease = locks.acquire("account:42", LockOptions.ofDefaults())) {
 *     credit(42, amount, lease.fencingToken());
 * }
 * }</pre>
 *
 * <p>Keys (default prefix {@value #DEFAULT_KEY_PREFIX}): {@code p{name}} holds the owner token
 * with the lease as TTL, {@code p{name}:fence} the fencing counter (never expires), {@code
 * p{name}:waiters} a short-lived "someone waits" flag; all share one hash tag, so each script runs
 * on one Redis Cluster slot. Every step is one Lua script, one round trip:
 *
 * <ol>
 *   <li><b>lock</b>: {@code SET p{name} token NX PX lease}; if set, {@code INCR} the fence (raised
 *       to at least the caller's clock in microseconds, see below) and return it. Otherwise flag a
 *       waiter and return the holder's remaining TTL, so a waiter for a lock that will expire
 *       rather than be released looks again exactly when it expires.
 *   <li><b>release</b>: delete the lock if it still holds the caller's token; if the waiter flag
 *       was set, delete it and {@code PUBLISH} on {@code p{name}:released}. Uncontended releases
 *       publish nothing (on Redis Cluster a {@code PUBLISH} is broadcast to every node).
 *   <li><b>extend</b>: {@code PEXPIRE} if the lock still holds the caller's token.
 *   <li><b>is held</b>: {@code GET} equals the caller's token.
 *   <li><b>wait</b>: the head waiter of this JVM (see {@link AbstractLockProvider}) subscribes to
 *       the lock's channel on one shared pub/sub connection and sleeps until a release message, the
 *       holder's expiry, or the poll interval ({@code LockOptions.maxRetryInterval()}), whichever
 *       comes first. Polling remains the fallback, so a lost message only costs time.
 * </ol>
 *
 * <p>Reentrancy is counted in the JVM by {@link AbstractLockProvider}, not in Redis: each outer
 * acquisition has its own unique token, so Redis only ever sees one owner per lock.
 *
 * <p>Guarantees and limits: expiry is Redis's own clock ({@code PX}). Redis replication is
 * asynchronous, so after a failover the new master may not have the lock (a second holder can get
 * in) nor the last fence increments. Fencing tokens survive that as long as the clients' clocks are
 * roughly right (the microsecond floor); guard writes with the token. {@link
 * Builder#replicaAcks(int, Duration) replicaAcks} grants a lock only once replicas have acknowledged
 * it, which keeps it across a failover to one of them (not across every failover: see there). For a
 * lock that must survive a node failure use {@link RedlockProvider} or ZooKeeper.
 *
 * <p>Failures: any Lettuce error (cannot connect, command timeout, server error) throws {@link
 * StoreUnavailableException}; it never reads as "free" or "taken". Thread-safe. The provider opens
 * its connections lazily and {@link #close()} closes them, never the client.
 */
public final class RedisLockProvider extends AbstractLockProvider implements AutoCloseable {
    /** Prefix of every key the provider writes unless configured otherwise. */
    public static final String DEFAULT_KEY_PREFIX = "dupguard:lock:";

    private static final byte[] FLAG_WAITER = {'1'};
    // The expiry of the lock that refused this thread's last tryLock: {name hash, deadline, valid}.
    // JDK types only, so a pooled thread never pins this class loader.
    private static final ThreadLocal<long[]> REFUSAL = ThreadLocal.withInitial(() -> new long[3]);
    private static final long EXPIRY_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final RedisConnector redis;
    private final ReleaseNotifications releases;
    private final LockKeys keys;
    private final ReplicaAcks acks; // null: no WAIT

    private RedisLockProvider(RedisConnector redis, ReleaseNotifications releases, String keyPrefix, ReplicaAcks acks) {
        this.redis = redis;
        this.releases = releases;
        this.keys = new LockKeys(keyPrefix);
        this.acks = acks;
    }

    /**
     * A provider on standalone Redis at the client's default URI, with the default key prefix.
     *
     * @param client the Lettuce client, owned by the caller (closing the provider leaves it open);
     *     not null
     * @return a thread-safe provider
     */
    public static RedisLockProvider create(RedisClient client) {
        return builder(client).build();
    }

    /**
     * A provider on standalone or Sentinel-managed Redis at {@code uri}, with the default key
     * prefix.
     *
     * @param client the Lettuce client, owned by the caller; not null
     * @param uri the server, or the Sentinel set and master name; not null
     * @return a thread-safe provider
     */
    public static RedisLockProvider create(RedisClient client, RedisURI uri) {
        return builder(client, uri).build();
    }

    /**
     * A provider on Redis Cluster, with the default key prefix.
     *
     * @param client the Lettuce cluster client, owned by the caller; not null
     * @return a thread-safe provider
     */
    public static RedisLockProvider create(RedisClusterClient client) {
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
        return new Builder(
                () -> RedisConnector.standalone(client, null),
                () -> client.connectPubSub(StringCodec.UTF8),
                client.getResources().eventExecutorGroup());
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
        return new Builder(
                () -> RedisConnector.standalone(client, uri),
                () -> client.connectPubSub(StringCodec.UTF8, uri),
                client.getResources().eventExecutorGroup());
    }

    /**
     * Builder for Redis Cluster. Release messages use classic pub/sub, which reaches every node.
     *
     * @param client the Lettuce cluster client, owned by the caller; not null
     * @return a new builder
     */
    public static Builder builder(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder(
                () -> RedisConnector.cluster(client),
                () -> client.connectPubSub(StringCodec.UTF8),
                client.getResources().eventExecutorGroup());
    }

    @Override
    protected OptionalLong tryLock(String name, String token, Duration lease) {
        Long answer = redis.evalAcked(
                LockScripts.LOCK,
                ScriptOutputType.INTEGER,
                new String[] {keys.lock(name), keys.fence(name), keys.waiters(name)},
                acks,
                fence -> fence != null && fence > 0,
                c -> RedisConnector.<Long>evalOn(
                        c,
                        LockScripts.UNLOCK,
                        ScriptOutputType.INTEGER,
                        new String[] {keys.lock(name), keys.waiters(name)},
                        LockScripts.utf8(token),
                        LockScripts.utf8(keys.channel(name))),
                LockScripts.utf8(token),
                LockScripts.millis(lease),
                LockScripts.fenceFloor(),
                FLAG_WAITER);
        long result = answer == null ? 0 : answer;
        if (result > 0) {
            return OptionalLong.of(result);
        }
        long[] refusal = REFUSAL.get();
        refusal[0] = name.hashCode();
        refusal[1] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(-result) + EXPIRY_SLACK_NANOS;
        refusal[2] = result < 0 ? 1 : 0; // 0: held without a known expiry, no hint
        return OptionalLong.empty();
    }

    @Override
    protected boolean extend(String name, String token, Duration lease) {
        // Not withdrawn if unreplicated: the watchdog retries a renewal that threw until the lease ends.
        Long done = redis.evalAcked(
                LockScripts.EXTEND,
                ScriptOutputType.INTEGER,
                new String[] {keys.lock(name)},
                acks,
                RedisLockProvider::isOne,
                c -> {},
                LockScripts.utf8(token),
                LockScripts.millis(lease));
        return isOne(done);
    }

    private static boolean isOne(Long answer) {
        return answer != null && answer == 1L;
    }

    @Override
    protected void unlock(String name, String token) {
        redis.<Long>eval(
                LockScripts.UNLOCK,
                ScriptOutputType.INTEGER,
                new String[] {keys.lock(name), keys.waiters(name)},
                LockScripts.utf8(token),
                LockScripts.utf8(keys.channel(name)));
    }

    /**
     * Sends the release and lets the next waiter of this JVM go before the answer arrives: its
     * lock script travels on the same connection behind the release, so Redis runs it after the
     * key is gone. A contended hand-off then costs one round trip, not two.
     */
    @Override
    protected void unlock(String name, String token, Runnable sent) {
        redis.<Long>evalThen(
                LockScripts.UNLOCK,
                ScriptOutputType.INTEGER,
                new String[] {keys.lock(name), keys.waiters(name)},
                sent,
                LockScripts.utf8(token),
                LockScripts.utf8(keys.channel(name)));
    }

    @Override
    protected boolean isHeld(String name, String token) {
        String key = keys.lock(name);
        byte[] holder = redis.call("isHeld", c -> c.get(key));
        return Arrays.equals(holder, LockScripts.utf8(token));
    }

    @Override
    protected void awaitRelease(String name, long nanos) throws InterruptedException {
        long wait = nanos;
        long[] refusal = REFUSAL.get();
        if (refusal[2] == 1 && refusal[0] == name.hashCode()) {
            wait = Math.max(0, Math.min(wait, refusal[1] - System.nanoTime()));
        }
        refusal[2] = 0;
        releases.await(keys.channel(name), wait);
    }

    @Override
    protected boolean notifiesReleases() {
        return true;
    }

    /**
     * The key prefix this provider writes under.
     *
     * @return the key prefix; never null
     */
    public String keyPrefix() {
        return keys.prefix();
    }

    /** The Redis key of lock {@code name}; the fence is this plus {@code :fence}. */
    String lockKey(String name) {
        return keys.lock(name);
    }

    /** Whether this provider currently listens for releases of {@code name} (for tests). */
    boolean listensFor(String name) {
        return releases.subscribed(keys.channel(name));
    }

    /** Closes the connections this provider opened; the client stays open. */
    @Override
    public void close() {
        releases.close();
        redis.close();
    }

    @Override
    public String toString() {
        return "RedisLockProvider[keyPrefix=" + keys.prefix() + "]";
    }

    /** Options of a {@link RedisLockProvider}; {@link #build()} does not connect yet. */
    public static final class Builder {
        private final Supplier<RedisConnector> connector;
        private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSub;
        private final ScheduledExecutorService scheduler;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private EvictionPolicyCheck evictionCheck = EvictionPolicyCheck.REFUSE;
        private ReplicaAcks acks;

        private Builder(
                Supplier<RedisConnector> connector,
                Supplier<StatefulRedisPubSubConnection<String, String>> pubSub,
                ScheduledExecutorService scheduler) {
            this.connector = connector;
            this.pubSub = pubSub;
            this.scheduler = scheduler;
        }

        /**
         * Prefix of every key and channel the provider uses; default {@value
         * RedisLockProvider#DEFAULT_KEY_PREFIX}. Not blank, no whitespace, control characters or
         * braces (the provider adds its own hash tag).
         *
         * @param keyPrefix the key and channel prefix; not null
         * @return this builder
         * @throws IllegalArgumentException if {@code keyPrefix} is blank or has whitespace, control
         *     characters or braces
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeyPrefix.check(keyPrefix, "keyPrefix");
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
         * Waits for replicas after every acquisition and renewal (default: no waiting): {@code WAIT
         * replicas timeout} on the connection that wrote. If fewer than {@code replicas} replicas
         * acknowledge in time, the call throws {@link StoreUnavailableException}: an acquisition
         * releases the lock first (best effort), so the caller holds nothing and another caller can
         * take it at once; a renewal stays on the master and the watchdog retries it until the lease
         * runs out.
         *
         * <p>What it buys: a lock that was granted is on at least {@code replicas} replicas, so a
         * failover to one of them keeps the holder (without it, a lock taken just before
         * the master fails can be missing on the promoted replica, and a second caller gets it).
         * What it does not: {@code WAIT} makes no write synchronous. Sentinel promotes the replica
         * with the best replication offset, which has every acknowledged write only as long as an
         * acknowledging replica is among the candidates; if every replica that acknowledged is down
         * or cut off when the master fails, the promoted one can lack the lock. A connection that
         * drops between the lock and its {@code WAIT} (whose re-sent {@code WAIT} would count the new
         * connection's writes only) makes the acquisition fail as not acknowledged. Guard writes
         * with the fencing token all the same.
         *
         * <p>Cost: one more round trip per acquisition and renewal, plus the replicas' answer; the
         * provider keeps one more connection per concurrent acquisition (docs/benchmarks.md). Keep {@code
         * timeout} well below the client's command timeout ({@link RedisURI#setTimeout}).
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
         * Builds the provider; connects on first use.
         *
         * @return the thread-safe provider
         */
        public RedisLockProvider build() {
            return new RedisLockProvider(
                    connector.get().evictionCheck(evictionCheck),
                    new ReleaseNotifications(pubSub, scheduler),
                    keyPrefix,
                    acks);
        }
    }
}
