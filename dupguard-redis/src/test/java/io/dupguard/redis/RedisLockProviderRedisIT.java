package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockUnavailableException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the Redis lock provider does on a real standalone server: keys, fences, notifications. */
class RedisLockProviderRedisIT {
    // Waiters here poll only every 20 s, so anything faster than that was a notification or the
    // expiry hint; the bounds below are still generous for a loaded machine.
    private static final LockOptions SLOW_POLL = LockOptions.custom()
            .waitTime(Duration.ofSeconds(60))
            .retryInterval(Duration.ofSeconds(20), Duration.ofSeconds(20))
            .build();
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private static RedisClient client;
    private static RedisClient otherMachine;
    private static StatefulRedisConnection<String, String> raw;
    private static RedisLockProvider locks;
    private static RedisLockProvider other;

    private String name;
    private ExecutorService pool;

    @BeforeAll
    static void connect() {
        client = RedisFixtures.standaloneClient();
        otherMachine = RedisFixtures.standaloneClient();
        raw = client.connect();
        locks = RedisLockProvider.create(client);
        other = RedisLockProvider.create(otherMachine);
    }

    @AfterAll
    static void shutdown() {
        locks.close();
        other.close();
        raw.close();
        client.shutdown();
        otherMachine.shutdown();
    }

    @BeforeEach
    void newName() {
        name = "rl-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private static RedisCommands<String, String> redis() {
        return raw.sync();
    }

    @Test
    void lockIsOneStringWithTheLeaseAsTtlAndTheFenceKeyNeverExpires() {
        String key = "dupguard:lock:{" + name + "}";
        assertThat(locks.lockKey(name)).isEqualTo(key);
        long fence;
        try (Lease lease = locks.tryAcquire(
                        name,
                        LockOptions.custom().leaseTime(Duration.ofSeconds(30)).build())
                .orElseThrow()) {
            fence = lease.fencingToken();
            assertThat(redis().pttl(key)).isBetween(1L, 30_000L);
            assertThat(redis().get(key)).isNotBlank();
            assertThat(redis().get(key + ":fence")).isEqualTo(Long.toString(fence));
        }
        assertThat(redis().exists(key)).isZero();
        assertThat(redis().ttl(key + ":fence")).isEqualTo(-1L);
        assertThat(redis().get(key + ":fence")).isEqualTo(Long.toString(fence));
    }

    @Test
    void fencingTokensStayAboveTheClockSoALostCounterCannotReissueOldTokens() {
        long before = System.currentTimeMillis() * 1000;
        long first;
        try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
            first = lease.fencingToken();
        }
        assertThat(first).isGreaterThanOrEqualTo(before);
        // A failover to a replica that never saw the increments loses the counter.
        redis().del(locks.lockKey(name) + ":fence");

        try (Lease lease = other.tryAcquire(name).orElseThrow()) {
            assertThat(lease.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void aReSentLockCommandFindsItsOwnLockAndItsFence() {
        OptionalLong first = locks.tryLock(name, "token-1", Duration.ofSeconds(30));
        // What Lettuce does when the reply was lost in a reconnect: send the same command again.
        OptionalLong again = locks.tryLock(name, "token-1", Duration.ofSeconds(30));

        assertThat(first).isPresent();
        assertThat(again).isEqualTo(first);
        assertThat(locks.tryLock(name, "token-2", Duration.ofSeconds(30))).isEmpty();
        locks.unlock(name, "token-1");
        assertThat(locks.isHeld(name, "token-1")).isFalse();
    }

    @Test
    void aReleaseWakesAWaiterOnAnotherMachineWithoutWaitingForThePoll() throws Exception {
        Lease held = locks.tryAcquire(name).orElseThrow();
        CountDownLatch acquired = new CountDownLatch(1);
        Future<Long> waiter = pool.submit(() -> {
            try (Lease lease = other.acquire(name, SLOW_POLL)) {
                acquired.countDown();
                return lease.fencingToken();
            }
        });
        // Subscribed, and refused once more after subscribing: now only a message can wake it early.
        await().atMost(Duration.ofSeconds(20)).until(() -> other.listensFor(name));
        await().atMost(Duration.ofSeconds(20)).until(() -> redis().exists(locks.lockKey(name) + ":waiters") == 1);

        held.close();

        assertThat(acquired.await(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(waiter.get()).isGreaterThan(held.fencingToken());
        assertThat(redis().exists(locks.lockKey(name) + ":waiters")).isZero();
    }

    @Test
    void aWaiterLooksAgainWhenTheHoldersLeaseRunsOutWithoutWaitingForThePoll() throws Exception {
        Lease abandoned = locks.tryAcquire(
                        name,
                        LockOptions.custom().leaseTime(Duration.ofSeconds(1)).build())
                .orElseThrow();
        long start = System.nanoTime();

        try (Lease lease = other.acquire(name, SLOW_POLL)) {
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(waited).isLessThan(Duration.ofSeconds(1).plus(PROMPTLY));
            assertThat(lease.fencingToken()).isGreaterThan(abandoned.fencingToken());
        }
    }

    @Test
    void onlyAContendedReleasePublishes() throws Exception {
        String channel = locks.lockKey(name) + ":released";
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        try (StatefulRedisPubSubConnection<String, String> listener = client.connectPubSub()) {
            listener.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String message) {
                    messages.add(message);
                }
            });
            listener.sync().subscribe(channel);
            for (int i = 0; i < 3; i++) {
                locks.tryAcquire(name).orElseThrow().close(); // nobody waits: nothing to announce
            }
            try (Lease held = locks.tryAcquire(name).orElseThrow()) {
                assertThat(other.tryAcquire(name)).isEmpty(); // a refused caller flags itself
            }
            // Redis delivers in order: once our marker arrives, every earlier message has.
            redis().publish(channel, "marker");

            assertThat(List.of(take(messages), take(messages))).containsExactly("1", "marker");
        }
    }

    private static String take(BlockingQueue<String> messages) throws InterruptedException {
        String m = messages.poll(20, TimeUnit.SECONDS);
        assertThat(m).as("message within 20 s").isNotNull();
        return m;
    }

    @Test
    void aChannelIsUnsubscribedOnceNobodyHasWaitedForTheLinger() {
        String channel = locks.lockKey(name) + ":released";
        try (Lease held = locks.tryAcquire(name).orElseThrow()) {
            LockOptions briefly =
                    LockOptions.custom().waitTime(Duration.ofMillis(500)).build();
            assertThatThrownBy(() -> other.acquire(name, briefly)).isInstanceOf(LockUnavailableException.class);
            assertThat(redis().pubsubNumsub(channel)).containsEntry(channel, 1L);

            await().atMost(ReleaseNotifications.LINGER.multipliedBy(10))
                    .until(() -> redis().pubsubNumsub(channel).get(channel) == 0L);
            assertThat(other.listensFor(name)).isFalse();
        }
    }
}
