package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.memory.InMemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code awaitCompletion(false)}: the completion is sent and {@code execute} returns; the same
 * thread's next call takes the answer before its own work runs, and a completion that was refused or
 * not answered fails that next call with its claim released.
 */
class AwaitCompletionTest {
    private static final Duration LEASE = Duration.ofSeconds(5);

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    };
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(clock);
    private final ExecutorService answers = Executors.newSingleThreadExecutor();
    private final AtomicInteger runs = new AtomicInteger();

    @AfterEach
    void stop() {
        answers.shutdownNow();
    }

    private Idempotency notAwaiting(IdempotencyStore store) {
        return notAwaiting(store, LEASE);
    }

    private Idempotency notAwaiting(IdempotencyStore store, Duration lease) {
        return Idempotency.of(
                store,
                IdempotencyConfig.custom()
                        .awaitCompletion(false)
                        .renewLease(false)
                        .inFlightLease(lease)
                        .build());
    }

    private Outcome<Integer> run(Idempotency idempotency, String key) {
        return idempotency.execute(
                IdempotencyKey.of("orders", key), Fingerprint.none(), Integer.class, runs::incrementAndGet);
    }

    private RecordStatus status(String key) {
        return memory.find(IdempotencyKey.of("orders", key)).orElseThrow().status();
    }

    @Test
    void aStoreThatDoesNotPipelineIsAwaitedAsBefore() {
        Idempotency idempotency = notAwaiting(memory);

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        assertThat(status("a")).isEqualTo(RecordStatus.COMPLETED);
        assertThat(run(idempotency, "a")).isEqualTo(Outcome.replayed(1));
        assertThat(runs).hasValue(1);
    }

    @Test
    void theNextCallTakesTheAnswerBeforeItsWorkRuns() {
        Answering store = new Answering(memory);
        Idempotency idempotency = notAwaiting(store);

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        assertThat(status("a")).as("sent, not yet answered").isEqualTo(RecordStatus.IN_PROGRESS);
        store.answer();
        assertThat(run(idempotency, "b")).isEqualTo(Outcome.first(2));
        assertThat(status("a")).isEqualTo(RecordStatus.COMPLETED);

        store.answer();
        idempotency.awaitCompletions();
        assertThat(status("b")).isEqualTo(RecordStatus.COMPLETED);
        assertThat(run(idempotency, "a")).isEqualTo(Outcome.replayed(1));
    }

    @Test
    void aCompletionRefusedAfterATakeoverFailsTheNextCallBeforeItsWorkAndFreesItsKey() {
        Answering store = new Answering(memory);
        Idempotency idempotency = notAwaiting(store);
        IdempotencyKey a = IdempotencyKey.of("orders", "a");

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        now.addAndGet(LEASE.toMillis() + 1);
        assertThat(memory.claim(a, Fingerprint.none(), "another-caller", LEASE)).isEqualTo(Claim.TAKEOVER);
        store.answer();

        assertThatThrownBy(() -> run(idempotency, "b"))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("orders");
        assertThat(runs).as("b's work did not run").hasValue(1);
        assertThat(memory.claim(IdempotencyKey.of("orders", "b"), Fingerprint.none(), "third", LEASE))
                .as("b's claim was released")
                .isEqualTo(Claim.FRESH);
        assertThat(run(idempotency, "c")).as("taken once").isEqualTo(Outcome.first(2));
    }

    @Test
    void aCompletionTheStoreDidNotAnswerIsSentAgainWithinItsLease() {
        Answering store = new Answering(memory);
        store.failNext = true;
        Idempotency idempotency = notAwaiting(store);

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        store.answer();
        assertThat(status("a")).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(run(idempotency, "b")).isEqualTo(Outcome.first(2));
        assertThat(status("a")).as("sent again, awaited").isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void aCompletionNotStoredWithinItsLeaseFailsTheNextCallAsAnOutage() {
        Answering store = new Answering(memory);
        store.failNext = true;
        store.down = true;
        Idempotency idempotency = notAwaiting(store, Duration.ofMillis(300)); // sent again until it ends

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        store.answer();
        assertThatThrownBy(idempotency::awaitCompletions).isInstanceOf(StoreUnavailableException.class);
        assertThat(runs).hasValue(1);
        idempotency.awaitCompletions(); // taken once: nothing left
    }

    @Test
    void aCallInsideAnotherKeepsItsAnswerPendingAndTheOuterOneIsAwaited() {
        Answering store = new Answering(memory);
        Idempotency idempotency = notAwaiting(store);

        Outcome<Integer> outer =
                idempotency.execute(IdempotencyKey.of("orders", "a"), Fingerprint.none(), Integer.class, () -> {
                    assertThat(run(idempotency, "b")).isEqualTo(Outcome.first(1));
                    return runs.incrementAndGet();
                });

        assertThat(outer).isEqualTo(Outcome.first(2));
        assertThat(status("a"))
                .as("awaited: the inner call's answer was pending")
                .isEqualTo(RecordStatus.COMPLETED);
        assertThat(status("b")).isEqualTo(RecordStatus.IN_PROGRESS);
        store.answer();
        idempotency.awaitCompletions();
        assertThat(status("b")).isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void aRefusedCompletionLeavesNothingInTheLocalCache() {
        Answering store = new Answering(memory);
        Idempotency idempotency = Idempotency.of(
                store,
                IdempotencyConfig.custom()
                        .awaitCompletion(false)
                        .renewLease(false)
                        .inFlightLease(LEASE)
                        .localCacheSize(16)
                        .build());
        IdempotencyKey a = IdempotencyKey.of("orders", "a");

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        now.addAndGet(LEASE.toMillis() + 1);
        assertThat(memory.claim(a, Fingerprint.none(), "another-caller", LEASE)).isEqualTo(Claim.TAKEOVER);
        store.answer();
        assertThatThrownBy(idempotency::awaitCompletions).isInstanceOf(LeaseLostException.class);

        assertThatThrownBy(() -> run(idempotency, "a"))
                .as("not replayed from the cache: the store holds another caller's claim")
                .isInstanceOf(RequestInFlightException.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void eachThreadTakesItsOwnAnswers() throws Exception {
        Answering store = new Answering(memory);
        Idempotency idempotency = notAwaiting(store);

        assertThat(run(idempotency, "a")).isEqualTo(Outcome.first(1));
        CompletableFuture<Void> other = CompletableFuture.runAsync(idempotency::awaitCompletions);
        other.get(); // another thread has nothing to take, and does not wait for this one's
        assertThat(status("a")).isEqualTo(RecordStatus.IN_PROGRESS);
        store.answer();
        idempotency.awaitCompletions();
        assertThat(status("a")).isEqualTo(RecordStatus.COMPLETED);
    }

    /**
     * A store that answers completions later, on a thread of its own, when the test says: the
     * in-memory store behind it records them then. {@code failNext}: the next completion is answered
     * as a store outage (nothing written); {@code down}: every synchronous completion fails too.
     */
    private final class Answering extends Delegating {
        volatile boolean failNext;
        volatile boolean down;
        private volatile CountDownLatch gate = new CountDownLatch(1);

        Answering(IdempotencyStore delegate) {
            super(delegate);
        }

        /** Lets the completions sent so far be answered, and waits until they are. */
        void answer() {
            CountDownLatch open = gate;
            gate = new CountDownLatch(1);
            open.countDown();
            CompletableFuture.runAsync(() -> {}, answers).join();
        }

        @Override
        public CompletionStage<Void> completeAsync(
                IdempotencyKey key,
                Fingerprint fingerprint,
                String owner,
                RecordStatus status,
                byte[] payload,
                Duration retention) {
            CountDownLatch wait = gate;
            boolean fail = failNext;
            failNext = false;
            return CompletableFuture.runAsync(
                    () -> {
                        try {
                            wait.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        if (fail) {
                            throw new StoreUnavailableException("test", "no answer", null);
                        }
                        delegate.complete(key, fingerprint, owner, status, payload, retention);
                    },
                    answers);
        }

        @Override
        public void complete(
                IdempotencyKey key,
                Fingerprint fingerprint,
                String owner,
                RecordStatus status,
                byte[] payload,
                Duration retention) {
            if (down) {
                throw new StoreUnavailableException("test", "down", null);
            }
            delegate.complete(key, fingerprint, owner, status, payload, retention);
        }
    }

    /** Passes every call to {@code delegate}. */
    private abstract static class Delegating implements IdempotencyStore {
        final IdempotencyStore delegate;

        Delegating(IdempotencyStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
            return delegate.claim(key, fingerprint, owner, lease);
        }

        @Override
        public void complete(
                IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
            delegate.complete(key, owner, status, payload, retention);
        }

        @Override
        public void release(IdempotencyKey key, String owner) {
            delegate.release(key, owner);
        }

        @Override
        public boolean renew(IdempotencyKey key, String owner, Duration lease) {
            return delegate.renew(key, owner, lease);
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
            return delegate.find(key);
        }

        @Override
        public List<Claim> claimAll(List<BatchEntry> entries, String owner, Duration lease) {
            return delegate.claimAll(entries, owner, lease);
        }
    }
}
