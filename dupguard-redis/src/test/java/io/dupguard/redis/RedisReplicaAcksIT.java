package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code replicaAcks} on the Sentinel-managed master and its two replicas ({@link SentinelRedis}):
 * acknowledged writes count; writes the replicas cannot acknowledge (paused with {@code CLIENT
 * PAUSE}, or more acknowledgements asked than replicas exist) fail with {@link
 * StoreUnavailableException} and leave nothing behind, so another caller gets the key or lock at
 * once. Every replica pause is ended in a finally block.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane, holding the Cluster lane's lock too: see Lanes
@ResourceLock(Lanes.SENTINEL)
@ResourceLock(Lanes.CLUSTER)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisReplicaAcksIT {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration REPLICA_PAUSE = Duration.ofSeconds(5); // a bound: ended in a finally block

    private final RedisClient acked = SentinelRedis.client();
    private final RedisClient plain = SentinelRedis.client();
    private final String scope =
            "acks-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    private List<RedisURI> replicas;

    @BeforeAll
    void bothReplicasAreUp() {
        replicas = SentinelRedis.healthyReplicas(plain);
    }

    @AfterAll
    void shutdown() {
        acked.shutdown();
        plain.shutdown();
    }

    @Test
    void everyWriteAcknowledgedByBothReplicasCounts() {
        IdempotencyKey key = IdempotencyKey.of(scope, "both");
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(acked)
                        .replicaAcks(2, Duration.ofSeconds(1))
                        .build();
                RedisLockProvider locks = RedisLockProvider.builder(acked)
                        .replicaAcks(2, Duration.ofSeconds(1))
                        .build();
                RedisSubmissionTokens tokens = RedisSubmissionTokens.builder(acked)
                        .replicaAcks(2, Duration.ofSeconds(1))
                        .build();
                RedisSubmitThrottle throttle = RedisSubmitThrottle.builder(acked)
                        .replicaAcks(2, Duration.ofSeconds(1))
                        .build()) {
            assertThat(store.claim(key, Fingerprint.none(), "owner-1", LEASE)).isEqualTo(Claim.FRESH);
            assertThat(store.renew(key, "owner-1", LEASE)).isTrue();
            store.complete(key, "owner-1", RecordStatus.COMPLETED, utf8("done"), LEASE);
            assertThat(store.find(key))
                    .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));

            Optional<Lease> lease = locks.tryAcquire(scope + ":lock");
            assertThat(lease).isPresent();
            lease.get().close();

            tokensAndWindowsCount(tokens, throttle, scope);
        }
    }

    /** An issued token is consumed once; a throttle window is granted once. */
    static void tokensAndWindowsCount(RedisSubmissionTokens tokens, RedisSubmitThrottle throttle, String scope) {
        String token = tokens.issue(scope, "user", LEASE);
        assertThat(tokens.consume(scope, "user", token)).isTrue();
        assertThat(throttle.tryAcquire(scope, "user", LEASE)).isTrue();
        assertThat(throttle.tryAcquire(scope, "user", LEASE)).isFalse();
    }

    @Test
    void claimThatNoReplicaAcknowledgesFailsRunsNothingAndLeavesTheKeyFree() {
        IdempotencyKey key = IdempotencyKey.of(scope, "paused");
        AtomicInteger runs = new AtomicInteger();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(acked)
                        .replicaAcks(1, Duration.ofMillis(300))
                        .build();
                RedisIdempotencyStore other = RedisIdempotencyStore.create(plain)) {
            withReplicasPaused(() -> claimFailsRunningNothingAndLeavesTheKeyFree(store, other, key, runs, "300 ms"));
        }
        assertThat(runs).hasValue(0);
    }

    /**
     * {@code execute} on {@code store}, whose replicas cannot acknowledge within {@code timeout}, fails
     * as not replicated without running the work (counted in {@code runs}); {@code other} then claims
     * the key.
     */
    static void claimFailsRunningNothingAndLeavesTheKeyFree(
            RedisIdempotencyStore store,
            RedisIdempotencyStore other,
            IdempotencyKey key,
            AtomicInteger runs,
            String timeout) {
        assertThatThrownBy(() -> Idempotency.of(store)
                        .execute(key, Fingerprint.none(), String.class, () -> "ran#" + runs.incrementAndGet()))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("not replicated")
                .hasMessageContaining("acknowledged by 0 of 1 replica(s) within " + timeout);
        assertThat(other.claim(key, Fingerprint.none(), "second", LEASE)).isEqualTo(Claim.FRESH);
    }

    @Test
    void lockThatNoReplicaAcknowledgesIsNotGrantedAndAnotherCallerGetsItAtOnce() {
        String name = scope + ":paused-lock";
        try (RedisLockProvider locks = RedisLockProvider.builder(acked)
                        .replicaAcks(1, Duration.ofMillis(300))
                        .build();
                RedisLockProvider other = RedisLockProvider.create(plain)) {
            withReplicasPaused(() -> lockIsRefusedAndFree(locks, other, name));
        }
    }

    /** {@code locks}, whose replicas cannot acknowledge, refuses {@code name}; {@code other} gets it at once. */
    static void lockIsRefusedAndFree(RedisLockProvider locks, RedisLockProvider other, String name) {
        assertThatThrownBy(() -> locks.tryAcquire(name))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("not replicated");
        Optional<Lease> second = other.tryAcquire(name, LockOptions.ofDefaults());
        assertThat(second).isPresent();
        second.get().close();
    }

    /**
     * A reconnect between a write and its {@code WAIT}: the write is answered, the connection drops,
     * Lettuce reconnects and sends the {@code WAIT} on the new socket, where it counts that socket's
     * writes, not this one. The drop is seen, and the write counts as not acknowledged and is withdrawn,
     * whatever the {@code WAIT} answered.
     */
    @Test
    void aWaitReSentAfterAReconnectDoesNotCountAndTheWriteIsWithdrawn() {
        String key = scope + ":reconnect";
        AtomicBoolean withdrawn = new AtomicBoolean();
        try (RedisConnector connector = RedisConnector.standalone(acked, null)) {
            withReplicasPaused(() -> assertThatThrownBy(() -> connector.callAcked(
                            "claim",
                            key,
                            ReplicaAcks.of(1, Duration.ofMillis(300)),
                            c -> {
                                String ok = c.set(key, utf8("written"));
                                dropAndReconnect(c);
                                return ok;
                            },
                            ok -> true,
                            c -> withdrawn.set(true)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("re-established between the write and its WAIT"));
        }
        assertThat(withdrawn).as("the write was withdrawn").isTrue();
    }

    /**
     * The connection kills itself ({@code CLIENT KILL ID} of its own id, {@code SKIPME no}: answered,
     * then closed); {@code PING} is asked until Lettuce has reconnected and it is answered. A
     * {@code PING} written before the server closed the socket fails with the reset (seen on a loaded
     * machine) and is asked again.
     */
    private static void dropAndReconnect(RedisClusterCommands<String, byte[]> c) {
        long id = c.clientId();
        c.clientKill(KillArgs.Builder.id(id).skipme(false));
        await().ignoreExceptions().atMost(Duration.ofSeconds(10)).until(() -> "PONG".equals(c.ping()));
    }

    /**
     * A completion whose {@code WAIT} fell short, sent again on another pooled connection whose last
     * write (the claim) the replica has acknowledged: the script finds its own completion done. It
     * writes all the same (the retention is reset), so the {@code WAIT} on that connection counts a
     * replica only once the replica has the completion: the completion is not reported stored while
     * the replica lacks it, and is once the replica has it. The same for a claim sent again.
     *
     * <p>Without that write this test fails on a server whose {@code WAIT} counts the connection's own
     * last write (Redis 7.2 and later; checked on Valkey 8.0 first on the {@code PATH}); Redis 7.0
     * counts its whole replication stream and passes either way.
     */
    @Test
    void aCompletionSentAgainOnAnotherConnectionIsNotStoredUntilAReplicaHasIt() throws Exception {
        IdempotencyKey key = IdempotencyKey.of(scope, "resent-completion");
        IdempotencyKey claimedTwice = IdempotencyKey.of(scope, "resent-claim");
        try (SentinelRedis.PrivatePair pair = new SentinelRedis.PrivatePair()) {
            RedisClient client = RedisClient.create(RedisFixtures.uri(pair.master.url()));
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                    .replicaAcks(1, Duration.ofMillis(300))
                    .build()) {
                // Two connections in the store's pool, the second holding the acknowledged claims,
                // the first (with no write yet) next in line.
                onTheNextConnection(store, () -> {
                    assertThat(store.claim(key, Fingerprint.none(), "owner-1", LEASE))
                            .isEqualTo(Claim.FRESH);
                    assertThat(store.claim(claimedTwice, Fingerprint.none(), "owner-2", LEASE))
                            .isEqualTo(Claim.FRESH);
                });
                withReplicaPaused(pair, () -> {
                    assertThatThrownBy(() -> complete(store, key))
                            .isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("acknowledged by 0 of 1");
                    assertThatThrownBy(() -> onTheNextConnection(store, () -> complete(store, key)))
                            .as("sent again on the connection of the acknowledged claim")
                            .isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("acknowledged by 0 of 1");
                    // the first connection has no write: a claim found done must write to be waited for
                    assertThatThrownBy(() -> store.claim(claimedTwice, Fingerprint.none(), "owner-2", LEASE))
                            .isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("acknowledged by 0 of 1");
                });
                onTheNextConnection(store, () -> complete(store, key));
                RedisClient onReplica = RedisClient.create(RedisURI.create("127.0.0.1", pair.replica.port()));
                try (StatefulRedisConnection<String, String> c = onReplica.connect()) {
                    assertThat(c.sync().get(store.redisKey(key)))
                            .as("the replica's record")
                            .startsWith("C");
                } finally {
                    onReplica.shutdown();
                }
            } finally {
                client.shutdown();
            }
        }
    }

    /**
     * A claim that times out (queued on its connection behind a {@code WAIT} the client gave up on)
     * is withdrawn on its own connection, behind it: once the server runs the claim, the withdrawal
     * follows and the key is free, not held for a lease by a claim nobody works on. Sent on another
     * connection, the withdrawal would run first, find nothing, and let the late claim hold the key.
     */
    @Test
    void aTimedOutClaimIsWithdrawnBehindItOnItsOwnConnection() throws Exception {
        IdempotencyKey key = IdempotencyKey.of(scope, "timed-out-claim");
        AtomicInteger runs = new AtomicInteger();
        try (SentinelRedis.PrivatePair pair = new SentinelRedis.PrivatePair()) {
            RedisURI uri = RedisFixtures.uri(pair.master.url());
            uri.setTimeout(Duration.ofMillis(300)); // the WAIT below outlasts it on purpose
            RedisClient client = RedisClient.create(uri);
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                            .replicaAcks(1, Duration.ofSeconds(20))
                            .build();
                    RedisIdempotencyStore other = RedisIdempotencyStore.create(client)) {
                Idempotency idempotency = Idempotency.of(store);
                withReplicaPaused(pair, () -> {
                    // the claim's WAIT times out in the client and stays blocked on the server
                    assertThatThrownBy(() -> idempotency.execute(
                                    key, Fingerprint.none(), String.class, () -> "ran#" + runs.incrementAndGet()))
                            .isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("WAIT for 1 replica(s) within 20000 ms failed");
                    // the next claim, on the same connection, waits behind that WAIT and times out
                    assertThatThrownBy(() -> idempotency.execute(
                                    key, Fingerprint.none(), String.class, () -> "ran#" + runs.incrementAndGet()))
                            .isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("claim failed");
                });
                // Replica back: the WAIT ends, the late claim runs, then what follows it on that connection.
                String redisKey = store.redisKey(key);
                // Read on that connection (the pool's next): answered only after everything sent before it.
                AtomicReference<Optional<byte[]>> after = new AtomicReference<>();
                await().atMost(Duration.ofSeconds(10))
                        .ignoreExceptionsInstanceOf(StoreUnavailableException.class)
                        .until(() -> {
                            after.set(Optional.ofNullable(store.connector()
                                    .callAcked(
                                            "read",
                                            redisKey,
                                            ReplicaAcks.of(1, Duration.ofMillis(1)),
                                            c -> c.get(redisKey),
                                            v -> false,
                                            c -> {})));
                            return true;
                        });
                assertThat(after.get())
                        .as("the late claim was withdrawn behind it")
                        .isEmpty();
                assertThat(other.claim(key, Fingerprint.none(), "second", LEASE))
                        .isEqualTo(Claim.FRESH);
            } finally {
                client.shutdown();
            }
        }
        assertThat(runs).hasValue(0);
    }

    private static void complete(RedisIdempotencyStore store, IdempotencyKey key) {
        store.complete(key, "owner-1", RecordStatus.COMPLETED, utf8("done"), LEASE);
    }

    /**
     * Runs {@code call} while this thread holds the store's next pooled connection, so the store's
     * writes in {@code call} take the one after it.
     */
    private static void onTheNextConnection(RedisIdempotencyStore store, Runnable call) {
        store.connector()
                .callAcked(
                        "hold a connection",
                        "any",
                        ReplicaAcks.of(1, Duration.ofMillis(1)),
                        c -> {
                            call.run();
                            return "";
                        },
                        v -> false,
                        c -> {});
    }

    /** Runs {@code test} with the private pair's replica paused (at most {@link #REPLICA_PAUSE}); ends the pause after it. */
    private static void withReplicaPaused(SentinelRedis.PrivatePair pair, Runnable test) {
        SentinelRedis.withReplicasPaused(
                List.of(RedisURI.create("127.0.0.1", pair.replica.port())), REPLICA_PAUSE, test);
    }

    /** More acknowledgements than the two replicas: a bounded wait, then the write is undone. */
    @Test
    void askingForMoreReplicasThanExistWithdrawsTokensAndWindows() {
        Duration timeout = Duration.ofMillis(100);
        try (RedisSubmissionTokens tokens = RedisSubmissionTokens.builder(acked)
                        .replicaAcks(3, timeout)
                        .build();
                RedisSubmissionTokens plainTokens = RedisSubmissionTokens.create(plain);
                RedisSubmitThrottle throttle = RedisSubmitThrottle.builder(acked)
                        .replicaAcks(3, timeout)
                        .build();
                RedisSubmitThrottle plainThrottle = RedisSubmitThrottle.create(plain)) {
            assertThatThrownBy(() -> tokens.issue(scope, "user", LEASE))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("acknowledged by 2 of 3 replica(s)");
            String token = plainTokens.issue(scope, "user", LEASE);
            assertThatThrownBy(() -> tokens.consume(scope, "user", token))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThat(plainTokens.consume(scope, "user", token))
                    .as("the consume was put back")
                    .isTrue();

            assertThatThrownBy(() -> throttle.tryAcquire(scope, "withdrawn", LEASE))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThat(plainThrottle.tryAcquire(scope, "withdrawn", LEASE))
                    .as("the window was withdrawn")
                    .isTrue();
        }
    }

    /**
     * The shared Redis Cluster has no replicas: each {@code WAIT} goes to the node owning the key's
     * slot, times out there, and the claims and locks are withdrawn on that node.
     */
    @Test
    void onAClusterWithoutReplicasWritesAreWithdrawnOnTheNodeOwningTheKey() {
        RedisClusterClient cluster = RedisFixtures.clusterClient();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(cluster)
                        .replicaAcks(1, Duration.ofMillis(50))
                        .build();
                RedisIdempotencyStore other = RedisIdempotencyStore.create(cluster);
                RedisLockProvider locks = RedisLockProvider.builder(cluster)
                        .replicaAcks(1, Duration.ofMillis(50))
                        .build();
                RedisLockProvider otherLocks = RedisLockProvider.create(cluster)) {
            for (int i = 0; i < 3; i++) { // three slots, usually on more than one node
                IdempotencyKey key = IdempotencyKey.of(scope, "cluster-" + i);
                assertThatThrownBy(() -> store.claim(key, Fingerprint.none(), "first", LEASE))
                        .isInstanceOf(StoreUnavailableException.class)
                        .hasMessageContaining("acknowledged by 0 of 1");
                assertThat(other.claim(key, Fingerprint.none(), "second", LEASE))
                        .isEqualTo(Claim.FRESH);

                String name = scope + ":cluster-lock-" + i;
                assertThatThrownBy(() -> locks.tryAcquire(name)).isInstanceOf(StoreUnavailableException.class);
                Optional<Lease> second = otherLocks.tryAcquire(name);
                assertThat(second).isPresent();
                second.get().close();
            }
        } finally {
            cluster.shutdown();
        }
    }

    private void withReplicasPaused(Runnable test) {
        SentinelRedis.withReplicasPaused(replicas, REPLICA_PAUSE, test);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
