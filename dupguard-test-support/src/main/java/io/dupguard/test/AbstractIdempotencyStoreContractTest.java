package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyListener;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.idempotency.ReplayedFailureException;
import io.dupguard.idempotency.RequestInFlightException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Behaviour every {@link IdempotencyStore} must show, run against the real server. A backend's test
 * extends this and names the server:
 *
 * <pre>{@code
 * class PostgresIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {
 *     protected IdempotencyStore store() { return ...; }
 *     protected IdempotencyStore unreachableStore() { return ...; }
 * }
 * }</pre>
 *
 * <p>Time-dependent cases use short leases and wait for the store's own expiry with Awaitility;
 * concurrency cases coordinate threads with latches, never with sleeps.
 */
public abstract class AbstractIdempotencyStoreContractTest extends AbstractBatchClaimContractTest {
    /** The lease of the expiry cases: short, so that the store's own expiry comes soon. */
    protected static final Duration SHORT = Duration.ofMillis(300);

    private static final int THREADS = 32;

    private String scope;
    private ExecutorService pool;

    /** The store under test; called once per test. */
    @Override
    protected abstract IdempotencyStore store();

    /**
     * A second store on the same server through separate connections, standing in for another
     * machine. Defaults to {@link #store()}.
     */
    @Override
    protected IdempotencyStore otherMachineStore() {
        return store();
    }

    /**
     * A store configured against an address where no server answers.
     *
     * @return a store whose every operation fails to reach its server
     */
    protected abstract IdempotencyStore unreachableStore();

    /**
     * A store on its own connections whose server can be made unreachable for a while (a refused
     * connection, a paused server with a short client timeout), and another machine's store on the
     * same server. Every backend provides one: the renewal-blip and lost-lease cases run on it.
     *
     * @return the stores under test and the outage that cuts the first off
     */
    protected abstract StoreOutage.Fixture<IdempotencyStore> outageFixture();

    @BeforeEach
    void setUpContract() {
        scope = "ct-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void tearDownContract() {
        pool.shutdownNow();
    }

    @Override
    protected IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, k);
    }

    private Idempotency idempotency(IdempotencyConfig.Builder config) {
        return Idempotency.of(store(), config.build());
    }

    /** First call runs and later calls replay. */
    @Test
    public void firstCallRunsAndLaterCallsReplay() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        AtomicInteger effects = new AtomicInteger();
        Fingerprint fp = Fingerprint.ofString("amount=10");

        Outcome<String> first =
                idem.execute(key("order-1"), fp, String.class, () -> "paid#" + effects.incrementAndGet());
        Outcome<String> second =
                idem.execute(key("order-1"), fp, String.class, () -> "paid#" + effects.incrementAndGet());
        Outcome<String> third = Idempotency.of(otherMachineStore())
                .execute(key("order-1"), fp, String.class, () -> "paid#" + effects.incrementAndGet());

        assertThat(first.kind()).isEqualTo(Outcome.Kind.FIRST);
        assertThat(first.value()).isEqualTo("paid#1");
        assertThat(second.isReplay()).isTrue();
        assertThat(second.value()).isEqualTo("paid#1");
        assertThat(third.isReplay()).isTrue();
        assertThat(third.value()).isEqualTo("paid#1");
        assertThat(effects).hasValue(1);
    }

    /** Null and binary results replay exactly. */
    @Test
    public void nullAndBinaryResultsReplayExactly() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        byte[] bytes = {0, 1, 2, (byte) 0xff};
        idem.execute(key("null"), Fingerprint.none(), String.class, () -> null);
        idem.execute(key("bytes"), Fingerprint.none(), byte[].class, () -> bytes);

        assertThat(idem.execute(key("null"), Fingerprint.none(), String.class, () -> "again"))
                .isEqualTo(replayOf(null));
        assertThat(idem.execute(key("bytes"), Fingerprint.none(), byte[].class, () -> new byte[0])
                        .value())
                .containsExactly(bytes);
    }

    /**
     * Thirty-two threads on one key run the work once and others are rejected.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void thirtyTwoThreadsOnOneKeyRunTheWorkOnceAndOthersAreRejected() throws Exception {
        Idempotency[] machines = {idempotency(IdempotencyConfig.custom()), Idempotency.of(otherMachineStore())};
        AtomicInteger effects = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        // Every thread counts down when its call returns; the work waits for the 31 others, so
        // every duplicate provably arrives while the first call is in flight.
        CountDownLatch othersDone = new CountDownLatch(THREADS - 1);
        List<Future<Object>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Idempotency idem = machines[i % 2];
            results.add(pool.submit(() -> {
                start.await();
                try {
                    return idem.execute(key("hot"), Fingerprint.ofString("p"), Integer.class, () -> {
                                int n = effects.incrementAndGet();
                                othersDone.await(20, TimeUnit.SECONDS);
                                return n;
                            })
                            .value();
                } catch (RequestInFlightException e) {
                    return e;
                } finally {
                    othersDone.countDown();
                }
            }));
        }
        start.countDown();

        List<Object> outcomes = new ArrayList<>();
        for (Future<Object> f : results) {
            outcomes.add(f.get(30, TimeUnit.SECONDS));
        }
        assertThat(effects).hasValue(1);
        assertThat(outcomes).filteredOn(o -> o.equals(1)).hasSize(1);
        assertThat(outcomes)
                .filteredOn(o -> o instanceof RequestInFlightException)
                .hasSize(THREADS - 1);
        assertThat(idempotency(IdempotencyConfig.custom())
                        .execute(key("hot"), Fingerprint.ofString("p"), Integer.class, () -> -1))
                .isEqualTo(replayOf(1));
    }

    /**
     * Thirty-two waiting threads all get the first value.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void thirtyTwoWaitingThreadsAllGetTheFirstValue() throws Exception {
        IdempotencyConfig.Builder waiting =
                IdempotencyConfig.custom().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(20)));
        Idempotency[] machines = {idempotency(waiting), Idempotency.of(otherMachineStore(), waiting.build())};
        AtomicInteger effects = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch arrived = new CountDownLatch(THREADS);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Idempotency idem = machines[i % 2];
            results.add(pool.submit(() -> {
                start.await();
                arrived.countDown();
                return idem.execute(key("serial"), Fingerprint.none(), String.class, () -> {
                            arrived.await(20, TimeUnit.SECONDS);
                            return "credited#" + effects.incrementAndGet();
                        })
                        .value();
            }));
        }
        start.countDown();

        for (Future<String> f : results) {
            assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo("credited#1");
        }
        assertThat(effects).hasValue(1);
    }

    /**
     * Many threads on many keys run each key once.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void manyThreadsOnManyKeysRunEachKeyOnce() throws Exception {
        Idempotency[] machines = {idempotency(IdempotencyConfig.custom()), Idempotency.of(otherMachineStore())};
        int keys = 50;
        int rounds = 4;
        ConcurrentLinkedQueue<String> effects = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Idempotency idem = machines[t % 2];
            done.add(pool.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < keys; k++) {
                        String name = "k" + k;
                        try {
                            idem.execute(key(name), Fingerprint.none(), String.class, () -> {
                                effects.add(name);
                                return name;
                            });
                        } catch (RequestInFlightException expected) {
                            // a duplicate arriving while the first runs: fine, the effect is single
                        }
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(effects).hasSize(keys).doesNotHaveDuplicates();
    }

    /** Same key with different payload is refused. */
    @Test
    public void sameKeyWithDifferentPayloadIsRefused() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        Fingerprint ten = Fingerprint.ofFields(Map.of("account", "A-1", "amount", "10.00"));
        Fingerprint eleven = Fingerprint.ofFields(Map.of("account", "A-1", "amount", "11.00"));
        AtomicInteger effects = new AtomicInteger();
        idem.execute(key("pay-7"), ten, Integer.class, effects::incrementAndGet);

        assertThatThrownBy(() -> idem.execute(key("pay-7"), eleven, Integer.class, effects::incrementAndGet))
                .isInstanceOf(PayloadMismatchException.class)
                .hasMessageContaining("pay-7");
        assertThat(effects).hasValue(1);
    }

    /** Different payload is refused while the first is in flight. */
    @Test
    public void differentPayloadIsRefusedWhileTheFirstIsInFlight() {
        store().claim(key("pay-8"), Fingerprint.ofString("a"), "someone-else", Duration.ofMinutes(1));

        assertThatThrownBy(() -> idempotency(IdempotencyConfig.custom())
                        .execute(key("pay-8"), Fingerprint.ofString("b"), String.class, () -> "x"))
                .isInstanceOf(PayloadMismatchException.class);
    }

    /** Failure releases the key so a retry runs again. */
    @Test
    public void failureReleasesTheKeySoARetryRunsAgain() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        AtomicInteger attempts = new AtomicInteger();

        assertThatThrownBy(() -> idem.execute(key("flaky"), Fingerprint.none(), String.class, () -> {
                    attempts.incrementAndGet();
                    throw new IllegalStateException("downstream timed out");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("downstream timed out");
        assertThat(store().find(key("flaky"))).isEmpty();

        Outcome<String> retry =
                idem.execute(key("flaky"), Fingerprint.none(), String.class, () -> "ok#" + attempts.incrementAndGet());
        assertThat(retry).isEqualTo(firstOf("ok#2"));
    }

    /** Final failure is stored and replayed. */
    @Test
    public void finalFailureIsStoredAndReplayed() {
        Idempotency idem = idempotency(
                IdempotencyConfig.custom().failurePolicy(FailurePolicy.storeFinal(IllegalArgumentException.class)));
        AtomicInteger attempts = new AtomicInteger();
        IdempotentThrower work = () -> {
            attempts.incrementAndGet();
            throw new IllegalArgumentException("card declined");
        };

        assertThatThrownBy(() -> idem.execute(key("declined"), Fingerprint.none(), String.class, work::run))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> idem.execute(key("declined"), Fingerprint.none(), String.class, work::run))
                .isInstanceOfSatisfying(ReplayedFailureException.class, e -> {
                    assertThat(e.originalType()).isEqualTo(IllegalArgumentException.class.getName());
                    assertThat(e.originalMessage()).isEqualTo("card declined");
                });
        assertThat(attempts).hasValue(1);
        assertThat(store().find(key("declined")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.FAILED));
    }

    /** Completed record expires after retention. */
    @Test
    public void completedRecordExpiresAfterRetention() {
        Idempotency idem = idempotency(IdempotencyConfig.custom().retention(SHORT));
        idem.execute(key("short-lived"), Fingerprint.none(), String.class, () -> "v1");
        assertThat(store().find(key("short-lived"))).isPresent();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> store().find(key("short-lived")).isEmpty());

        assertThat(idem.execute(key("short-lived"), Fingerprint.none(), String.class, () -> "v2"))
                .isEqualTo(firstOf("v2"));
    }

    /** Abandoned claim is taken over and the old owner loses its lease. */
    @Test
    public void abandonedClaimIsTakenOverAndTheOldOwnerLosesItsLease() {
        IdempotencyStore store = store();
        assertThat(store.claim(key("crash"), Fingerprint.none(), "crashed-owner", SHORT))
                .isInstanceOf(Claim.Claimed.class);
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        assertThatThrownBy(() -> idem.execute(key("crash"), Fingerprint.none(), String.class, () -> "early"))
                .isInstanceOf(RequestInFlightException.class);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.find(key("crash")).isEmpty());

        assertThat(idem.execute(key("crash"), Fingerprint.none(), String.class, () -> "rescued"))
                .isEqualTo(firstOf("rescued"));
        assertThatThrownBy(() ->
                        store.complete(key("crash"), "crashed-owner", RecordStatus.COMPLETED, new byte[] {1}, SHORT))
                .isInstanceOf(LeaseLostException.class);
        assertThat(idem.execute(key("crash"), Fingerprint.none(), String.class, () -> "late"))
                .isEqualTo(replayOf("rescued"));
    }

    /**
     * Slow owner without renewal gets lease lost when a takeover happened.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void slowOwnerWithoutRenewalGetsLeaseLostWhenATakeoverHappened() throws Exception {
        Idempotency slow =
                idempotency(IdempotencyConfig.custom().inFlightLease(SHORT).renewLease(false));
        Idempotency rescuer = Idempotency.of(otherMachineStore());
        CountDownLatch takenOver = new CountDownLatch(1);
        Future<Object> slowCall = pool.submit(() -> {
            try {
                return slow.execute(key("gc-pause"), Fingerprint.none(), String.class, () -> {
                    takenOver.await(20, TimeUnit.SECONDS);
                    return "stale";
                });
            } catch (LeaseLostException e) {
                return e;
            }
        });

        Outcome<String> rescued = await().atMost(Duration.ofSeconds(10))
                .ignoreException(RequestInFlightException.class)
                .until(
                        () -> rescuer.execute(key("gc-pause"), Fingerprint.none(), String.class, () -> "fresh"),
                        o -> true);
        takenOver.countDown();

        assertThat(rescued).isEqualTo(firstOf("fresh"));
        assertThat(slowCall.get(20, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
        assertThat(rescuer.execute(key("gc-pause"), Fingerprint.none(), String.class, () -> "again"))
                .isEqualTo(replayOf("fresh"));
    }

    /** Renewed lease keeps long work owned. */
    @Test
    public void renewedLeaseKeepsLongWorkOwned() {
        // A 1 s lease renewed every 333 ms: short enough to outlive twice in 2 s, long enough that
        // a loaded two-core build does not starve the renewal thread past it.
        Duration lease = Duration.ofSeconds(1);
        Idempotency longRunner = idempotency(IdempotencyConfig.custom().inFlightLease(lease));
        Idempotency duplicate = Idempotency.of(otherMachineStore());

        Outcome<String> out = longRunner.execute(key("long"), Fingerprint.none(), String.class, () -> {
            // For two lease lengths, every duplicate must still see the work in flight: without
            // renewal the claim lapses at 1 s, and a duplicate polling every 50 ms takes it over.
            await().during(lease.multipliedBy(2))
                    .atMost(lease.multipliedBy(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> inFlight(duplicate, key("long")));
            return "done";
        });

        assertThat(out).isEqualTo(firstOf("done"));
    }

    /** Runs for {@code d}: stands in for work that takes that long. */
    private static void workFor(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        await().atMost(d.plusSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> System.nanoTime() - end >= 0);
    }

    /** A listener that counts lost leases. */
    private static final class LeaseLossCounter implements IdempotencyListener {
        final AtomicInteger lost = new AtomicInteger();

        @Override
        public void onLeaseLost(IdempotencyKey key) {
            lost.incrementAndGet();
        }
    }

    /**
     * One store blip must never let a second caller in: renewal fails while the store is
     * unreachable, is retried, and succeeds once the store is back, long before the lease ends.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    @ExpectedWarnings("renewals fail while the store is cut off, and the pool or driver reports the outage")
    public void renewalSurvivesAStoreBlipAndNoDuplicateRuns() throws Exception {
        StoreOutage.Fixture<IdempotencyStore> f = outageFixture();
        Duration lease = Duration.ofSeconds(3);
        LeaseLossCounter losses = new LeaseLossCounter();
        Idempotency owner = Idempotency.of(
                f.store(),
                IdempotencyConfig.custom().inFlightLease(lease).listener(losses).build());
        Idempotency duplicate = Idempotency.of(
                f.otherMachine(),
                IdempotencyConfig.custom().inFlightLease(lease).build());
        AtomicInteger effects = new AtomicInteger();
        AtomicInteger duplicatesThatRan = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(1);

        Future<Outcome<String>> first =
                pool.submit(() -> owner.execute(key("blip"), Fingerprint.none(), String.class, () -> {
                    effects.incrementAndGet();
                    f.outage().begin(Duration.ofMillis(1200)); // the first renewal (at 1 s) falls inside it
                    running.countDown();
                    // Half a second past the lease: only renewal keeps the claim, and the duplicate
                    // (every 50 ms) and the lost-lease listener get ten chances to see it lapse.
                    workFor(lease.plusMillis(500));
                    return "charged";
                }));
        running.await(20, TimeUnit.SECONDS);
        while (!first.isDone()) {
            try {
                duplicate.execute(key("blip"), Fingerprint.none(), String.class, () -> {
                    duplicatesThatRan.incrementAndGet();
                    effects.incrementAndGet();
                    return "charged twice";
                });
            } catch (RequestInFlightException | StoreUnavailableException expected) {
                // in flight, or the duplicate's own store is paused too
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(50).toNanos()); // pacing
        }

        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(firstOf("charged"));
        assertThat(duplicatesThatRan).hasValue(0);
        assertThat(effects).hasValue(1);
        assertThat(losses.lost).hasValue(0);
        assertThat(duplicate.execute(key("blip"), Fingerprint.none(), String.class, () -> "late"))
                .isEqualTo(replayOf("charged"));
    }

    /**
     * One store blip must never let the work run twice: a completion that meets it (a killed
     * connection, a paused server) is retried while the lease holds, instead of leaving the claim to
     * expire and the client's retry to run the work again.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    @ExpectedWarnings("the completion fails while the store is cut off, and the pool or driver reports the outage")
    public void completionSurvivesAStoreBlipAndTheWorkRunsOnce() throws Exception {
        StoreOutage.Fixture<IdempotencyStore> f = outageFixture();
        Duration lease = Duration.ofSeconds(3);
        Idempotency owner = Idempotency.of(
                f.store(), IdempotencyConfig.custom().inFlightLease(lease).build());
        Idempotency retry = Idempotency.of(
                f.otherMachine(),
                IdempotencyConfig.custom().inFlightLease(lease).build());
        AtomicInteger effects = new AtomicInteger();

        Outcome<String> first = owner.execute(key("complete-blip"), Fingerprint.none(), String.class, () -> {
            effects.incrementAndGet();
            f.outage().begin(Duration.ofMillis(800)); // the completion falls inside it
            return "charged";
        });

        assertThat(first).isEqualTo(firstOf("charged"));
        Outcome<String> again = await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptionsMatching(e -> e instanceof StoreUnavailableException)
                .until(
                        () -> retry.execute(key("complete-blip"), Fingerprint.none(), String.class, () -> {
                            effects.incrementAndGet();
                            return "charged twice";
                        }),
                        o -> true);
        assertThat(again).isEqualTo(replayOf("charged"));
        assertThat(effects).hasValue(1);
    }

    /**
     * When no renewal can succeed within the lease the owner learns it lost the lease; a caller
     * that took over in the meantime wins, and the owner's completion is refused.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    @ExpectedWarnings("renewals fail while the store is cut off, and the pool or driver reports the outage")
    public void ownerLearnsItLostTheLeaseWhenNoRenewalSucceedsInTime() throws Exception {
        StoreOutage.Fixture<IdempotencyStore> f = outageFixture();
        Duration lease = Duration.ofSeconds(1);
        LeaseLossCounter losses = new LeaseLossCounter();
        Idempotency owner = Idempotency.of(
                f.store(),
                IdempotencyConfig.custom().inFlightLease(lease).listener(losses).build());
        // The rescuer's lease is as short: a claim of its that a paused server queued, after its
        // client gave up waiting, and ran once the pause ended holds the key only that long.
        Idempotency rescuer = Idempotency.of(
                f.otherMachine(),
                IdempotencyConfig.custom().inFlightLease(lease).build());
        CountDownLatch takenOver = new CountDownLatch(1);
        // Twice the lease: every renewal the watchdog tries within the lease meets it (a late one
        // finds the lease run out in the store), and the rescuer takes over once it ends.
        Duration outage = Duration.ofSeconds(2);
        long outageEnds =
                System.nanoTime() + outage.toNanos() + Duration.ofMillis(500).toNanos();

        Future<Object> ownerCall = pool.submit(() -> {
            try {
                return owner.execute(key("outage"), Fingerprint.none(), String.class, () -> {
                    f.outage().begin(outage);
                    takenOver.await(30, TimeUnit.SECONDS);
                    return "stale";
                });
            } catch (LeaseLostException e) {
                return e;
            }
        });
        Outcome<String> rescued = await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptionsMatching(
                        e -> e instanceof RequestInFlightException || e instanceof StoreUnavailableException)
                .until(
                        () -> rescuer.execute(key("outage"), Fingerprint.none(), String.class, () -> "rescued"),
                        o -> true);
        // The owner's work still runs: only the watchdog can have told it.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(losses.lost).hasValue(1));
        workFor(Duration.ofNanos(Math.max(1, outageEnds - System.nanoTime()))); // the store is back
        takenOver.countDown();

        assertThat(rescued).isEqualTo(firstOf("rescued"));
        assertThat(ownerCall.get(30, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
        assertThat(losses.lost).hasValue(1); // told once: the refused completion does not repeat it
        assertThat(rescuer.execute(key("outage"), Fingerprint.none(), String.class, () -> "again"))
                .isEqualTo(replayOf("rescued"));
    }

    /**
     * A completion whose claim expired but which nobody took over is recorded on every store: the
     * work ran, and refusing its result would make the client's retry run it again.
     */
    @Test
    public void lateCompletionIsRecordedWhenNobodyTookOver() {
        Idempotency slow =
                idempotency(IdempotencyConfig.custom().inFlightLease(SHORT).renewLease(false));
        AtomicInteger effects = new AtomicInteger();

        Outcome<String> out = slow.execute(key("late"), Fingerprint.ofString("p"), String.class, () -> {
            effects.incrementAndGet();
            workFor(SHORT.multipliedBy(3)); // the lease runs out; nobody else asks for the key
            return "recorded";
        });

        assertThat(out).isEqualTo(firstOf("recorded"));
        assertThat(Idempotency.of(otherMachineStore())
                        .execute(key("late"), Fingerprint.ofString("p"), String.class, () -> {
                            effects.incrementAndGet();
                            return "ran twice";
                        }))
                .isEqualTo(replayOf("recorded"));
        assertThat(effects).hasValue(1);
    }

    /** The longest retention and lease any configuration accepts are stored and honoured. */
    @Test
    public void longestRetentionAndLeaseAreStoredAndReplayed() {
        Idempotency idem = idempotency(IdempotencyConfig.custom()
                .retention(IdempotencyConfig.MAX_DURATION)
                .inFlightLease(IdempotencyConfig.MAX_DURATION));
        AtomicInteger effects = new AtomicInteger();

        assertThat(idem.execute(key("forever"), Fingerprint.none(), Integer.class, effects::incrementAndGet))
                .isEqualTo(firstOf(1));
        assertThat(idem.execute(key("forever"), Fingerprint.none(), Integer.class, effects::incrementAndGet))
                .isEqualTo(replayOf(1));
        assertThat(Idempotency.of(otherMachineStore())
                        .execute(key("forever"), Fingerprint.none(), Integer.class, effects::incrementAndGet))
                .isEqualTo(replayOf(1));
        assertThat(effects).hasValue(1);
    }

    /** Results holding malformed UTF-16 replay exactly, not with '?' in place of the surrogate. */
    @Test
    public void resultWithALoneSurrogateReplaysExactly() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        String odd = "k\uD800x\uDBFF";
        idem.execute(key("surrogate"), Fingerprint.none(), String.class, () -> odd);

        assertThat(Idempotency.of(otherMachineStore())
                        .execute(key("surrogate"), Fingerprint.none(), String.class, () -> "ran again")
                        .value())
                .isEqualTo(odd);
    }

    private static boolean inFlight(Idempotency idem, IdempotencyKey key) {
        try {
            idem.execute(key, Fingerprint.none(), String.class, () -> "duplicate ran");
            return false;
        } catch (RequestInFlightException e) {
            return true;
        }
    }

    /** Keys differing only in case are distinct by default. */
    @Test
    public void keysDifferingOnlyInCaseAreDistinctByDefault() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());

        assertThat(idem.execute(key("DB00x"), Fingerprint.none(), String.class, () -> "a"))
                .isEqualTo(firstOf("a"));
        assertThat(idem.execute(key("Db00X"), Fingerprint.none(), String.class, () -> "b"))
                .isEqualTo(firstOf("b"));
    }

    /** Keys differing only in trailing space are distinct. */
    @Test
    public void keysDifferingOnlyInTrailingSpaceAreDistinct() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());

        assertThat(idem.execute(key("A-1"), Fingerprint.none(), String.class, () -> "a"))
                .isEqualTo(firstOf("a"));
        assertThat(idem.execute(key("A-1 "), Fingerprint.none(), String.class, () -> "b"))
                .isEqualTo(firstOf("b"));
    }

    /** Keys differing only in case collide when folding case. */
    @Test
    public void keysDifferingOnlyInCaseCollideWhenFoldingCase() {
        Idempotency idem = idempotency(IdempotencyConfig.custom());
        IdempotencyKey upper = IdempotencyKey.ofIgnoringCase(scope, "DB00x");
        IdempotencyKey mixed = IdempotencyKey.ofIgnoringCase(scope, "Db00X");

        assertThat(idem.execute(upper, Fingerprint.none(), String.class, () -> "a"))
                .isEqualTo(firstOf("a"));
        assertThat(idem.execute(mixed, Fingerprint.none(), String.class, () -> "b"))
                .isEqualTo(replayOf("a"));
    }

    /** Longest key with multi-byte characters round trips. */
    @Test
    public void longestKeyWithMultiByteCharactersRoundTrips() {
        String longest = "订单-" + "é".repeat(IdempotencyKey.MAX_KEY_LENGTH - 5) + "𝄞";
        assertThat(longest).hasSize(IdempotencyKey.MAX_KEY_LENGTH);
        IdempotencyKey k = IdempotencyKey.of(scope, longest);
        Idempotency idem = idempotency(IdempotencyConfig.custom());

        idem.execute(k, Fingerprint.none(), String.class, () -> "stored");

        assertThat(store().find(k)).hasValueSatisfying(r -> assertThat(r.key()).isEqualTo(k));
        assertThat(idem.execute(k, Fingerprint.none(), String.class, () -> "again"))
                .isEqualTo(replayOf("stored"));
    }

    /** Owner checks refuse strangers. */
    @Test
    public void ownerChecksRefuseStrangers() {
        IdempotencyStore store = store();
        store.claim(key("owned"), Fingerprint.none(), "owner-a", Duration.ofMinutes(1));

        store.release(key("owned"), "owner-b");
        assertThat(store.renew(key("owned"), "owner-b", Duration.ofMinutes(1))).isFalse();
        assertThatThrownBy(() -> store.complete(key("owned"), "owner-b", RecordStatus.COMPLETED, new byte[] {0}, SHORT))
                .isInstanceOf(LeaseLostException.class);

        assertThat(store.find(key("owned"))).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(RecordStatus.IN_PROGRESS);
            assertThat(r.owner()).isEqualTo("owner-a");
        });
        assertThat(store.renew(key("owned"), "owner-a", Duration.ofMinutes(1))).isTrue();
        store.release(key("owned"), "owner-a");
        assertThat(store.find(key("owned"))).isEmpty();
    }

    /** Unreachable store raises and never runs the work. */
    @Test
    @ExpectedWarnings("a driver may warn that it cannot reach the unreachable store")
    public void unreachableStoreRaisesAndNeverRunsTheWork() {
        Idempotency idem = Idempotency.of(unreachableStore());
        AtomicInteger effects = new AtomicInteger();

        assertThatThrownBy(() -> idem.execute(key("down"), Fingerprint.none(), Integer.class, effects::incrementAndGet))
                .isInstanceOf(StoreUnavailableException.class);
        List<BatchEntry> batch = List.of(BatchEntry.of(key("down-1")), BatchEntry.of(key("down-2")));
        assertThatThrownBy(() -> idem.<Integer, RuntimeException>executeBatch(
                        batch, Integer.class, (claimed, progress) -> effects.incrementAndGet()))
                .as("a batch")
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(effects).hasValue(0);
    }

    private static <T> Outcome<T> firstOf(T value) {
        return Outcome.first(value);
    }

    private static <T> Outcome<T> replayOf(T value) {
        return Outcome.replayed(value);
    }

    @FunctionalInterface
    private interface IdempotentThrower {
        String run();
    }
}
