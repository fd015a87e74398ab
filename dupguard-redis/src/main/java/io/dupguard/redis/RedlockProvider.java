package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
import io.dupguard.internal.Checks;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.spi.AbstractLockProvider;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@link LockProvider} over N ≥ 3 independent Redis servers (Redlock): a lock is held while a
 * majority of the nodes hold it, so it survives the loss of a minority of them.
 *
 * <pre>{@code
 * RedlockProvider locks = RedlockProvider.create(List.of(
 *         RedisURI.create("redis://10.0.0.1"), RedisURI.create("redis://10.0.0.2"), RedisURI.create("redis://10.0.0.3")));
 * }</pre>
 *
 * <p>Each node holds the same keys as {@link RedisLockProvider} (lock with owner token and TTL,
 * fence counter), written by the same scripts. Acquisition, with {@code quorum = N/2 + 1}:
 *
 * <ol>
 *   <li>Note the start time; send the lock script to every node at once (Lettuce async API).
 *   <li>Wait for the answers, at most the node timeout ({@link Builder#nodeTimeout}; by default
 *       {@code min(50 ms, lease / 10)}, far below the lease), and no longer than needed: as soon as
 *       a quorum took the lock, or a quorum can no longer take it.
 *   <li>Fencing token {@code T} = the largest counter value among the nodes that took the lock.
 *       Counters on independent nodes drift apart (a node misses acquisitions while down), so
 *       {@code T} is written back ({@code fence = max(fence, T)}) to every acquired node that is
 *       behind, until a quorum has {@code fence ≥ T} — skipped when a quorum already drew {@code T}.
 *   <li>Validity = lease − elapsed − drift, drift = lease × {@link Builder#clockDriftFactor} + 2 ms.
 *       Success if a quorum acquired, a quorum records {@code T}, and the validity is positive.
 *   <li>Otherwise release on <em>every</em> node, including those that seemed to fail (their
 *       request may have run after all), then report: contention (some node refused because
 *       another owner holds the lock) as "not acquired"; fewer than a quorum of nodes answering,
 *       or an acquisition slower than the lease, as {@link StoreUnavailableException}.
 * </ol>
 *
 * <p>Why tokens increase: a later holder B can only take the lock on a node after the earlier
 * holder A's key there is gone. A wrote {@code T_A} to a quorum while still holding its keys
 * (the validity check comes after the write-back). Any two majorities of the same N nodes share a
 * node, and on that node B's increment comes after A's write-back, so {@code T_B > T_A}. Caveat: a
 * node that restarts without persistence forgets both its lock and its counter; the lock script
 * raises every counter to at least the caller's clock in microseconds, which keeps tokens
 * increasing across such a loss as long as clocks are roughly right, but the lock itself may be
 * granted twice (restart such nodes only after the longest lease, or enable AOF with {@code
 * appendfsync always}). Mutual exclusion also assumes the nodes' clocks run at about the same
 * rate (the drift term); fencing is what keeps a stale holder from doing harm.
 *
 * <p>Extend and is-held ask every node and need a quorum; release asks every node and waits for
 * all of them, up to the node timeout, so the next acquirer finds every reachable node free.
 * Opening a node's connection (first use, a cold JVM) is waited for before the clock starts, up to
 * 10 s, so it never counts against the node timeout. Waiters poll (no pub/sub across independent
 * nodes). Reentrancy is counted in the JVM by {@link AbstractLockProvider}. Thread-safe.
 */
public final class RedlockProvider extends AbstractLockProvider implements AutoCloseable {
    /** Prefix of every key the provider writes unless configured otherwise. */
    public static final String DEFAULT_KEY_PREFIX = RedisLockProvider.DEFAULT_KEY_PREFIX;
    /** Upper bound of the default node timeout (which is {@code min(this, lease / 10)}). */
    public static final Duration DEFAULT_MAX_NODE_TIMEOUT = Duration.ofMillis(50);
    /** Share of the lease assumed lost to clock drift between the nodes. */
    public static final double DEFAULT_CLOCK_DRIFT_FACTOR = 0.01;
    /** Fixed part of the drift allowance (the granularity of Redis expiry). */
    public static final Duration DRIFT_MARGIN = Duration.ofMillis(2);

    private final RedlockQuorum redlock;
    private final String keyPrefix;
    private final RedisClient ownedClient;

    private RedlockProvider(Builder b, RedisClient client, boolean owned) {
        List<RedlockNode> nodes =
                b.uris.stream().map(u -> new RedlockNode(client, u)).toList();
        this.redlock = new RedlockQuorum(nodes, new LockKeys(b.keyPrefix), b.nodeTimeout, b.driftFactor);
        this.keyPrefix = b.keyPrefix;
        this.ownedClient = owned ? client : null;
    }

    /**
     * A provider on these nodes with its own client (shut down by {@link #close()}).
     *
     * @param nodes the independent Redis masters, at least three distinct servers; not null
     * @return a thread-safe provider
     */
    public static RedlockProvider create(List<RedisURI> nodes) {
        return builder(nodes).build();
    }

    /**
     * A provider on these nodes, each reached by its own connection from {@code client}.
     *
     * @param client the Lettuce client, owned by the caller; not null
     * @param nodes the independent Redis masters, at least three distinct servers; not null
     * @return a thread-safe provider
     */
    public static RedlockProvider create(RedisClient client, List<RedisURI> nodes) {
        return builder(client, nodes).build();
    }

    /**
     * Builder with a client of its own, which rejects commands to a disconnected node at once
     * instead of queueing them until it comes back.
     *
     * @param nodes the independent Redis masters, at least three distinct servers; not null
     * @return a new builder
     */
    public static Builder builder(List<RedisURI> nodes) {
        return new Builder(null, nodes);
    }

    /**
     * Builder on the caller's client (its options and resources; closing the provider leaves it
     * open). Consider {@code DisconnectedBehavior.REJECT_COMMANDS}: otherwise Lettuce queues
     * commands for a node that is down until its command timeout.
     *
     * @param client the Lettuce client, owned by the caller; not null
     * @param nodes the independent Redis masters, at least three distinct servers; not null
     * @return a new builder
     */
    public static Builder builder(RedisClient client, List<RedisURI> nodes) {
        return new Builder(Objects.requireNonNull(client, "client"), nodes);
    }

    @Override
    protected OptionalLong tryLock(String name, String token, Duration lease) {
        return redlock.lock(name, token, lease);
    }

    @Override
    protected boolean extend(String name, String token, Duration lease) {
        return redlock.extend(name, token, lease);
    }

    @Override
    protected void unlock(String name, String token) {
        redlock.unlock(name, token);
    }

    @Override
    protected boolean isHeld(String name, String token) {
        return redlock.isHeld(name, token);
    }

    /**
     * How many nodes must agree.
     *
     * @return the quorum, {@code N/2 + 1} of the N nodes
     */
    public int quorum() {
        return redlock.quorum();
    }

    /** Closes the node connections, and the client if the provider created it. */
    @Override
    public void close() {
        redlock.close();
        if (ownedClient != null) {
            ownedClient.shutdown();
        }
    }

    @Override
    public String toString() {
        return "RedlockProvider" + redlock.nodes() + "[keyPrefix=" + keyPrefix + ", quorum=" + redlock.quorum() + "]";
    }

    /** Options of a {@link RedlockProvider}; {@link #build()} does not connect yet. */
    public static final class Builder {
        private final RedisClient client; // null: build() creates one the provider owns
        private final List<RedisURI> uris;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration nodeTimeout;
        private double driftFactor = DEFAULT_CLOCK_DRIFT_FACTOR;

        private Builder(RedisClient client, List<RedisURI> uris) {
            Objects.requireNonNull(uris, "nodes");
            Checks.atLeast(uris.size(), 3, "number of nodes");
            Set<String> seen = new HashSet<>();
            for (RedisURI uri : uris) {
                Objects.requireNonNull(uri, "node URI");
                if (!seen.add(uri.getHost() + ":" + uri.getPort())) {
                    // The same server counted twice would let one server's answer stand for two votes.
                    throw new IllegalArgumentException("nodes must be distinct servers, " + uri.getHost() + ":"
                            + uri.getPort() + " is listed twice");
                }
            }
            this.client = client;
            this.uris = List.copyOf(uris);
        }

        /**
         * Prefix of every key; default {@value RedlockProvider#DEFAULT_KEY_PREFIX}. No braces.
         *
         * @param keyPrefix the key prefix; not null, not blank, no braces
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeyPrefix.check(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * Fixed time each request may take on the nodes (they are asked in parallel). By default
         * acquisition allows {@code min(50 ms, lease / 10)} and other requests 50 ms. Keep it far
         * below the lease: what acquisition spends waiting is lost from the lease's validity.
         *
         * @param nodeTimeout the time allowed per request; not null, positive
         * @return this builder
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = Checks.positive(nodeTimeout, "nodeTimeout");
            return this;
        }

        /**
         * Share of the lease assumed lost to clock drift; default 0.01, from 0 up to 0.5.
         *
         * @param factor the drift share, from 0 up to 0.5
         * @return this builder
         * @throws IllegalArgumentException if {@code factor} is out of range
         */
        public Builder clockDriftFactor(double factor) {
            if (!(factor >= 0 && factor <= 0.5)) {
                throw new IllegalArgumentException("clockDriftFactor must be between 0 and 0.5, was " + factor);
            }
            this.driftFactor = factor;
            return this;
        }

        /**
         * Builds the provider; connects on first use.
         *
         * @return the thread-safe provider
         */
        public RedlockProvider build() {
            if (client != null) {
                return new RedlockProvider(this, client, false);
            }
            RedisClient own = RedisClient.create();
            own.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .build());
            return new RedlockProvider(this, own, true);
        }
    }
}
