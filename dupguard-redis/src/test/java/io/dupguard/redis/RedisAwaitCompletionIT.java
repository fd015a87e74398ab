package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.LeaseLostException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.test.ExpectedWarnings;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code awaitCompletion(false)} on the standalone server: the completion travels ahead of the same
 * thread's next claim on the store's shared connection, one round trip for both; the next call takes
 * its answer before its own work runs.
 */
class RedisAwaitCompletionIT {
    private static final int MACHINES = 4;
    private static final int THREADS = 4;
    private static final int KEYS = 300;

    private final String scope =
            "ac-" + Long.toHexString(ThreadLocalRandom.current().nextLong());

    private static IdempotencyConfig.Builder notAwaiting() {
        return IdempotencyConfig.custom().awaitCompletion(false);
    }

    /**
     * Four machines (a client and store each), four threads each, every thread over the same keys in
     * its own order: each key's work runs exactly once, and every key ends completed.
     */
    @Test
    void everyKeyRunsOnceAcrossMachinesAndEndsCompleted() throws Exception {
        Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
        List<RedisClient> clients = new ArrayList<>();
        List<RedisIdempotencyStore> stores = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(MACHINES * THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int m = 0; m < MACHINES; m++) {
                RedisClient client = RedisFixtures.standaloneClient();
                clients.add(client);
                RedisIdempotencyStore store = RedisIdempotencyStore.create(client);
                stores.add(store);
                Idempotency idempotency = Idempotency.of(
                        store,
                        notAwaiting()
                                .inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(30)))
                                .build());
                for (int t = 0; t < THREADS; t++) {
                    done.add(pool.submit(() -> {
                        List<Integer> order = new ArrayList<>();
                        for (int k = 0; k < KEYS; k++) {
                            order.add(k);
                        }
                        Collections.shuffle(order);
                        start.await();
                        for (int k : order) {
                            String id = "k" + k;
                            idempotency.execute(
                                    IdempotencyKey.of(scope, id),
                                    Fingerprint.none(),
                                    Integer.class,
                                    () -> effects.computeIfAbsent(id, x -> new AtomicInteger())
                                            .incrementAndGet());
                        }
                        idempotency.awaitCompletions();
                        return null;
                    }));
                }
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertThat(effects).hasSize(KEYS);
            assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
            for (int k = 0; k < KEYS; k++) {
                assertThat(stores.get(0)
                                .find(IdempotencyKey.of(scope, "k" + k))
                                .orElseThrow()
                                .status())
                        .isEqualTo(RecordStatus.COMPLETED);
            }
        } finally {
            pool.shutdownNow();
            stores.forEach(RedisIdempotencyStore::close);
            clients.forEach(RedisClient::shutdown);
        }
    }

    /**
     * A short pause of the server (longer than the client's 300 ms command timeout) swallows the
     * answer of a completion sent during it: the next call sends the completion again within its
     * lease, then runs its own work. Each key's work runs once, and both records end completed.
     */
    @Test
    @ExpectedWarnings("the completion whose answer timed out is logged before it is sent again")
    void aCompletionWhoseAnswerAShortPauseSwallowedIsSentAgainAndEachKeyRunsOnce() throws Exception {
        try (ThrowawayRedis server = new ThrowawayRedis(List.of())) {
            RedisClient client = RedisFixtures.impatientClient(server.url());
            RedisClient admin = RedisClient.create(RedisFixtures.uri(server.url()));
            try (RedisIdempotencyStore store = RedisIdempotencyStore.create(client);
                    var pauser = admin.connect()) {
                Idempotency idempotency = Idempotency.of(store, notAwaiting().build());
                IdempotencyKey a = IdempotencyKey.of(scope, "paused-a");
                IdempotencyKey b = IdempotencyKey.of(scope, "paused-b");
                AtomicInteger runsA = new AtomicInteger();
                AtomicInteger runsB = new AtomicInteger();

                assertThat(idempotency.execute(a, Fingerprint.none(), Integer.class, () -> {
                            pauser.sync().clientPause(800); // the completion goes out during the pause
                            return runsA.incrementAndGet();
                        }))
                        .isEqualTo(Outcome.first(1));
                await().atMost(Duration.ofSeconds(10))
                        .ignoreExceptions()
                        .until(() -> "PONG".equals(pauser.sync().ping())
                                && store.find(a).isPresent());

                assertThat(idempotency.execute(b, Fingerprint.none(), Integer.class, runsB::incrementAndGet))
                        .isEqualTo(Outcome.first(1));
                idempotency.awaitCompletions();

                assertThat(store.find(a).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
                assertThat(store.find(b).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
                assertThat(idempotency.execute(a, Fingerprint.none(), Integer.class, runsA::incrementAndGet))
                        .isEqualTo(Outcome.replayed(1));
                assertThat(runsA).hasValue(1);
                assertThat(runsB).hasValue(1);
            } finally {
                client.shutdown();
                admin.shutdown();
            }
        }
    }

    /**
     * The first call's lease runs out and another machine takes its key over while the work runs: the
     * completion it sent is refused, and the same thread's next call throws {@link
     * LeaseLostException} before its work runs, its own key left free.
     */
    @Test
    void aCompletionRefusedAfterATakeoverFailsTheNextCallBeforeItsWork() {
        RedisClient client = RedisFixtures.standaloneClient();
        RedisClient otherClient = RedisFixtures.standaloneClient();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.create(client);
                RedisIdempotencyStore other = RedisIdempotencyStore.create(otherClient)) {
            Idempotency idempotency = Idempotency.of(
                    store,
                    notAwaiting()
                            .renewLease(false)
                            .inFlightLease(Duration.ofMillis(300))
                            .build());
            IdempotencyKey a = IdempotencyKey.of(scope, "a");
            IdempotencyKey b = IdempotencyKey.of(scope, "b");
            AtomicInteger runs = new AtomicInteger();

            Outcome<Integer> first = idempotency.execute(a, Fingerprint.none(), Integer.class, () -> {
                await().atMost(Duration.ofSeconds(5)).until(() -> store.find(a).isEmpty()); // Redis expired it
                assertThat(other.claim(a, Fingerprint.none(), "other-machine", Duration.ofSeconds(30)))
                        .isEqualTo(Claim.FRESH);
                return runs.incrementAndGet();
            });
            assertThat(first).isEqualTo(Outcome.first(1));

            assertThatThrownBy(() -> idempotency.execute(b, Fingerprint.none(), Integer.class, runs::incrementAndGet))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining(a.toString());
            assertThat(runs).as("b's work did not run").hasValue(1);
            assertThat(other.claim(b, Fingerprint.none(), "third", Duration.ofSeconds(30)))
                    .as("b's claim was withdrawn")
                    .isEqualTo(Claim.FRESH);
            assertThat(store.find(a).orElseThrow().owner()).isEqualTo("other-machine");
        } finally {
            client.shutdown();
            otherClient.shutdown();
        }
    }
}
