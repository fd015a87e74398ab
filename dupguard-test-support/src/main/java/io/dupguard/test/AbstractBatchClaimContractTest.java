package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.idempotency.BatchClaim;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The batch methods of {@link IdempotencyStore} ({@code claimAll}, {@code completeAll}, {@code
 * releaseAll}) and {@link Idempotency#claimBatch} / {@link Idempotency#executeBatch} on them: every
 * store runs these through {@link AbstractIdempotencyStoreContractTest}. A store that talks to a
 * server reports its round trips ({@link #roundTrips()}) and how many a batch costs it, and the
 * cases assert them.
 */
public abstract class AbstractBatchClaimContractTest {
    private static final Duration BATCH_SHORT = Duration.ofMillis(300);

    /**
     * The store under test.
     *
     * @return the same instance on every call within a test
     */
    protected abstract IdempotencyStore store();

    /**
     * A second store on the same server through separate connections (another machine).
     *
     * @return a store on the same server as {@link #store()}
     */
    protected abstract IdempotencyStore otherMachineStore();

    /**
     * A key in this test's own scope.
     *
     * @param k the key within the test
     * @return the key in a scope no other test uses
     */
    protected abstract IdempotencyKey key(String k);

    /**
     * Round trips (statements, commands) that {@link #store()} has sent to its server so far, or -1
     * for a store without a server (in memory), whose round trips are not asserted.
     *
     * @return the count so far, or -1 by default
     */
    protected long roundTrips() {
        return -1;
    }

    /**
     * Round trips of one {@code claimAll} of {@code keys} distinct keys, none of them expired.
     *
     * @param keys the batch size
     * @return 1 by default
     */
    protected int claimAllRoundTrips(int keys) {
        return 1;
    }

    /**
     * Round trips of one {@code completeAll} or {@code releaseAll} of {@code keys} keys.
     *
     * @param keys the batch size
     * @return 1 by default
     */
    protected int completeAllRoundTrips(int keys) {
        return 1;
    }

    private List<BatchEntry> entries(String... keys) {
        return java.util.Arrays.stream(keys).map(k -> BatchEntry.of(key(k))).toList();
    }

    /** Batch tells each entry what it found. */
    @Test
    public void batchTellsEachEntryWhatItFound() {
        Idempotency idem = Idempotency.of(store());
        Fingerprint a = Fingerprint.ofString("a");
        idem.execute(key("done"), a, String.class, () -> "stored");
        idem.execute(key("other-payload"), a, String.class, () -> "x");
        assertThat(otherMachineStore().claim(key("running"), Fingerprint.none(), "elsewhere", Duration.ofMinutes(1)))
                .isInstanceOf(Claim.Claimed.class);
        List<BatchEntry> batch = List.of(
                BatchEntry.of(key("new-1")),
                new BatchEntry(key("done"), a),
                BatchEntry.of(key("running")),
                new BatchEntry(key("other-payload"), Fingerprint.ofString("b")),
                BatchEntry.of(key("new-1")),
                BatchEntry.of(key("new-2")));

        try (BatchClaim<String> claim = idem.claimBatch(batch, String.class)) {
            List<BatchResult<String>> r = claim.results();
            assertThat(r.get(0)).isEqualTo(new BatchResult.Claimed<String>(batch.get(0), false));
            assertThat(r.get(1)).isEqualTo(new BatchResult.Replayed<>(batch.get(1), "stored"));
            assertThat(r.get(2)).isEqualTo(new BatchResult.InFlight<String>(batch.get(2)));
            assertThat(r.get(3)).isEqualTo(new BatchResult.Mismatch<String>(batch.get(3)));
            assertThat(r.get(4)).isEqualTo(new BatchResult.DuplicateInBatch<String>(batch.get(4), 0));
            assertThat(r.get(5)).isEqualTo(new BatchResult.Claimed<String>(batch.get(5), false));
            assertThat(claim.claimed()).containsExactly(batch.get(0), batch.get(5));

            claim.complete(Map.of(key("new-1"), "one", key("new-2"), "two"));
            assertThat(claim.claimed()).isEmpty();
        }
        assertThat(Idempotency.of(otherMachineStore())
                        .execute(key("new-2"), Fingerprint.none(), String.class, () -> "again")
                        .value())
                .isEqualTo("two");
    }

    /** Batch takes over expired claims and the old owner loses them. */
    @Test
    public void batchTakesOverExpiredClaimsAndTheOldOwnerLosesThem() {
        IdempotencyStore store = store();
        store.claim(key("crashed"), Fingerprint.none(), "crashed-owner", BATCH_SHORT);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.find(key("crashed")).isEmpty());

        List<Claim> claims =
                otherMachineStore().claimAll(entries("crashed", "fresh"), "rescuer", Duration.ofMinutes(1));

        // Whether the first is reported as a takeover is the store's: on Redis an expired record is gone.
        assertThat(claims).allMatch(c -> c instanceof Claim.Claimed);
        assertThat(claims.get(1)).isEqualTo(Claim.FRESH);
        byte[] late = "late".getBytes(StandardCharsets.UTF_8);
        assertThat(store.completeAll(
                        List.of(new BatchCompletion(key("crashed"), Fingerprint.none(), RecordStatus.COMPLETED, late)),
                        "crashed-owner",
                        Duration.ofMinutes(1)))
                .containsExactly(key("crashed"));
        assertThat(store.find(key("crashed")))
                .hasValueSatisfying(r -> assertThat(r.owner()).isEqualTo("rescuer"));
    }

    /**
     * Overlapping batches from many threads on two machines claim each key once.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void overlappingBatchesFromManyThreadsOnTwoMachinesClaimEachKeyOnce() throws Exception {
        int keys = 60;
        int threads = 8;
        Idempotency[] machines = {Idempotency.of(store()), Idempotency.of(otherMachineStore())};
        Map<IdempotencyKey, AtomicInteger> effects = new ConcurrentHashMap<>();
        Map<IdempotencyKey, AtomicInteger> firsts = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Idempotency idem = machines[t % 2];
                List<Integer> order =
                        new ArrayList<>(IntStream.range(0, keys).boxed().toList());
                Collections.shuffle(order, new java.util.Random(t));
                List<BatchEntry> batch = order.subList(0, keys / 2).stream()
                        .map(i -> BatchEntry.of(key("k" + i)))
                        .toList();
                done.add(pool.submit(() -> {
                    start.await();
                    for (BatchResult<Integer> r :
                            idem.<Integer, RuntimeException>executeBatch(batch, Integer.class, (claimed, progress) -> {
                                for (BatchEntry e : claimed) {
                                    progress.done(
                                            e.key(),
                                            effects.computeIfAbsent(e.key(), k -> new AtomicInteger())
                                                    .incrementAndGet());
                                }
                            })) {
                        if (r instanceof BatchResult.First<Integer>) {
                            firsts.computeIfAbsent(r.key(), k -> new AtomicInteger())
                                    .incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(firsts.keySet()).isEqualTo(effects.keySet());
        assertThat(firsts.values()).allSatisfy(n -> assertThat(n).hasValue(1));
    }

    /** Work failing mid-batch keeps the done entries and releases the rest. */
    @Test
    public void workFailingMidBatchKeepsTheDoneEntriesAndReleasesTheRest() {
        Idempotency idem = Idempotency.of(store());
        List<BatchEntry> batch = entries("a", "b", "c", "d");

        assertThatThrownBy(() ->
                        idem.<String, IllegalStateException>executeBatch(batch, String.class, (claimed, progress) -> {
                            progress.done(claimed.get(0).key(), "A");
                            progress.done(claimed.get(1).key(), "B");
                            throw new IllegalStateException("broker hiccup at c");
                        }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("broker hiccup at c");

        List<BatchResult<String>> redelivered = Idempotency.of(otherMachineStore())
                .executeBatch(batch, String.class, (claimed, progress) -> {
                    claimed.forEach(
                            e -> progress.done(e.key(), "again " + e.key().key()));
                });
        assertThat(redelivered)
                .containsExactly(
                        new BatchResult.Replayed<>(batch.get(0), "A"),
                        new BatchResult.Replayed<>(batch.get(1), "B"),
                        new BatchResult.First<>(batch.get(2), "again c"),
                        new BatchResult.First<>(batch.get(3), "again d"));
    }

    /** Entry failures follow the failure policy and the batch goes on. */
    @Test
    public void entryFailuresFollowTheFailurePolicyAndTheBatchGoesOn() {
        Idempotency idem = Idempotency.of(
                store(),
                IdempotencyConfig.custom()
                        .failurePolicy(FailurePolicy.storeFinal(IllegalArgumentException.class))
                        .build());
        List<BatchEntry> batch = entries("declined", "timed-out", "forgotten", "paid");
        IllegalArgumentException declined = new IllegalArgumentException("card declined");
        IllegalStateException timedOut = new IllegalStateException("timeout");

        List<BatchResult<String>> first = idem.executeBatch(batch, String.class, (claimed, progress) -> {
            progress.failed(key("declined"), declined);
            progress.failed(key("timed-out"), timedOut);
            progress.done(key("paid"), "ok");
        });

        assertThat(first.get(0)).isEqualTo(new BatchResult.Failed<String>(batch.get(0), declined, true));
        assertThat(first.get(1)).isEqualTo(new BatchResult.Failed<String>(batch.get(1), timedOut, false));
        assertThat(first.get(2)).isInstanceOfSatisfying(BatchResult.Failed.class, f -> assertThat(f.failure())
                .isInstanceOf(IllegalStateException.class));
        assertThat(first.get(3)).isEqualTo(new BatchResult.First<>(batch.get(3), "ok"));

        List<BatchResult<String>> again = idem.executeBatch(batch, String.class, (claimed, progress) -> {
            claimed.forEach(e -> progress.done(e.key(), "retried"));
        });
        assertThat(again.get(0)).isInstanceOfSatisfying(BatchResult.ReplayedFailure.class, f -> assertThat(
                        f.failure().originalMessage())
                .isEqualTo("card declined"));
        assertThat(again.get(1)).isEqualTo(new BatchResult.First<>(batch.get(1), "retried"));
        assertThat(again.get(2)).isEqualTo(new BatchResult.First<>(batch.get(2), "retried"));
        assertThat(again.get(3)).isEqualTo(new BatchResult.Replayed<>(batch.get(3), "ok"));
    }

    /** Released and closed claims can be claimed again. */
    @Test
    public void releasedAndClosedClaimsCanBeClaimedAgain() {
        Idempotency idem = Idempotency.of(store());
        List<BatchEntry> batch = entries("r1", "r2", "r3");
        try (BatchClaim<String> claim = idem.claimBatch(batch, String.class)) {
            claim.release(List.of(key("r1")));
            assertThat(claim.claimed()).containsExactly(batch.get(1), batch.get(2));
            assertThatThrownBy(() -> claim.release(List.of(key("r1"))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not held");
        }
        try (BatchClaim<String> again = Idempotency.of(otherMachineStore()).claimBatch(batch, String.class)) {
            assertThat(again.claimed()).containsExactlyElementsOf(batch);
        }
    }

    /** A batch costs one round trip per step. */
    @Test
    public void aBatchCostsOneRoundTripPerStep() {
        IdempotencyStore store = store();
        store.find(key("warm-up")); // first use: dialect, layout and replica checks
        Idempotency.of(store).execute(key("m-done"), Fingerprint.none(), String.class, () -> "v");
        store.claim(key("m-running"), Fingerprint.none(), "elsewhere", Duration.ofMinutes(1));
        List<BatchEntry> fresh = IntStream.range(0, 50)
                .mapToObj(i -> BatchEntry.of(key("rt-" + i)))
                .toList();
        List<BatchEntry> mixed = new ArrayList<>(entries("m-done", "m-running", "m-new"));

        long before = roundTrips();
        List<Claim> claims = store.claimAll(fresh, "rt-owner", Duration.ofMinutes(1));
        long afterFresh = roundTrips();
        List<Claim> mixedClaims = store.claimAll(mixed, "rt-owner", Duration.ofMinutes(1));
        long afterMixed = roundTrips();
        List<BatchCompletion> completions = fresh.stream()
                .map(e -> new BatchCompletion(e.key(), e.fingerprint(), RecordStatus.COMPLETED, new byte[] {1}))
                .toList();
        assertThat(store.completeAll(completions, "rt-owner", Duration.ofMinutes(1)))
                .isEmpty();
        long afterComplete = roundTrips();
        store.releaseAll(List.of(key("m-new")), "rt-owner");
        long afterRelease = roundTrips();

        assertThat(claims).allMatch(c -> c.equals(Claim.FRESH));
        assertThat(mixedClaims.get(0)).isInstanceOf(Claim.Existing.class);
        assertThat(mixedClaims.get(1)).isInstanceOf(Claim.Existing.class);
        assertThat(mixedClaims.get(2)).isEqualTo(Claim.FRESH);
        assertThat(store.find(key("rt-49")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));
        assertThat(store.find(key("m-new"))).isEmpty();
        if (before >= 0) {
            assertThat(afterFresh - before).as("claimAll of 50 fresh keys").isEqualTo(claimAllRoundTrips(50));
            assertThat(afterMixed - afterFresh).as("claimAll of a mixed batch").isEqualTo(claimAllRoundTrips(3));
            assertThat(afterComplete - afterMixed).as("completeAll of 50 keys").isEqualTo(completeAllRoundTrips(50));
            assertThat(afterRelease - afterComplete).as("releaseAll").isEqualTo(completeAllRoundTrips(1));
        }
    }
}
