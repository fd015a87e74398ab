package io.dupguard.idempotency;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.internal.LocalResultCache;
import io.dupguard.internal.Owners;
import io.dupguard.internal.Watchdog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a piece of work at most once per {@link IdempotencyKey} (guarantees K1–K9).
 *
 * <pre>{@code
 * Idempotency idempotency = Idempotency.of(store);
 * Outcome<String> out = idempotency.execute(
 *         IdempotencyKey.of("payments", requestId),
 *         Fingerprint.ofFields(Map.of("account", account, "amount", amount)),
 *         String.class,
 *         () -> ledger.charge(account, amount));
 * }</pre>
 *
 * <p>One call:
 *
 * <ol>
 *   <li>claims the key atomically in the store (one step: insert-if-absent or a script);
 *   <li>if claimed, runs the work (renewing the in-flight lease while it runs), stores the encoded
 *       result as {@code COMPLETED} and returns {@link Outcome.Kind#FIRST};
 *   <li>if a completed record exists, checks the fingerprint ({@link PayloadMismatchException} on a
 *       different payload) and returns the stored value as {@link Outcome.Kind#REPLAYED};
 *   <li>if the first call is still running, rejects ({@link RequestInFlightException}) or waits,
 *       as the {@link InFlightPolicy} says;
 *   <li>if the work throws, releases the claim so a retry may run again, or stores the failure for
 *       replay when the {@link FailurePolicy} classifies it as final.
 * </ol>
 *
 * <p>A crashed owner's claim is taken over once its lease runs out; the old owner's completion is
 * then refused with {@link LeaseLostException}. A store that cannot be reached throws {@link
 * io.dupguard.StoreUnavailableException} before any work runs.
 *
 * <p>Guarantee: the work's <em>recorded</em> result is single. If the work has side effects outside
 * the store and the process dies between the work and the completion, a retry after the lease runs
 * again; to make the side effect and the record atomic, keep both in one database transaction
 * ({@code JdbcTransactionalIdempotency} in {@code dupguard-jdbc}).
 *
 * <p>A batch of keys (the messages of a Kafka or RabbitMQ batch) is claimed in one round trip with
 * {@link #claimBatch} or {@link #executeBatch}, which report per entry what it found ({@link
 * BatchResult}) and complete and release the batch in one round trip each.
 *
 * <p>Thread-safe; share one instance per store and configuration (creating one is cheap too).
 */
public final class Idempotency {
    /** The most entries one batch may hold ({@link #claimBatch}, {@link #executeBatch}). */
    public static final int MAX_BATCH_SIZE = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(Idempotency.class);
    private static final long MIN_POLL_NANOS = Duration.ofMillis(1).toNanos();
    private static final long ANSWER_GRACE_NANOS = Duration.ofSeconds(1).toNanos();
    private static final long MAX_POLL_NANOS = Duration.ofMillis(50).toNanos();

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final IdempotencyListener listener;
    private final LocalResultCache<IdempotencyKey, CachedResult> cache;

    private record CachedResult(Fingerprint fingerprint, byte[] payload) {}

    /**
     * A completion sent without waiting ({@link IdempotencyConfig#awaitCompletion()} false), whose
     * answer the same thread's next call takes; {@code validUntilNanos} is when its lease ends.
     */
    private record Pending(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            byte[] payload,
            CompletableFuture<Void> answer,
            long validUntilNanos,
            Watchdog.Renewal renewal) {}

    /** This thread's completion still to be answered; empty unless completions are not awaited. */
    private final ThreadLocal<Pending> pending = new ThreadLocal<>();

    private Idempotency(IdempotencyStore store, IdempotencyConfig config) {
        this.store = Objects.requireNonNull(store, "store");
        this.config = Objects.requireNonNull(config, "config");
        this.listener = config.listener();
        this.cache = config.localCacheSize() > 0 ? new LocalResultCache<>(config.localCacheSize()) : null;
    }

    /**
     * An executor with {@link IdempotencyConfig#ofDefaults()}.
     *
     * @param store where keys are claimed; not null
     * @return a thread-safe executor
     */
    public static Idempotency of(IdempotencyStore store) {
        return new Idempotency(store, IdempotencyConfig.ofDefaults());
    }

    /**
     * An executor on {@code store} with {@code config}. The executor is thread-safe; share one per store.
     *
     * @param store where keys are claimed and results recorded
     * @param config leases, policies, codec, listener
     * @return the executor
     * @throws NullPointerException if an argument is null
     */
    public static Idempotency of(IdempotencyStore store, IdempotencyConfig config) {
        return new Idempotency(store, config);
    }

    /**
     * The configuration this executor runs with.
     *
     * @return the configuration; never null
     */
    public IdempotencyConfig config() {
        return config;
    }

    /**
     * The store this executor claims keys in.
     *
     * @return the store; never null
     */
    public IdempotencyStore store() {
        return store;
    }

    /**
     * Runs {@code work} once per key and returns its result, or replays the result of the call that
     * ran it.
     *
     * @param type the result type, used to decode replays
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param work the operation, run at most once per key while its result is retained; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws PayloadMismatchException the key was used with a different fingerprint
     * @throws RequestInFlightException the first call is still running (and the wait, if any, ran
     *     out)
     * @throws ReplayedFailureException the first call failed with a failure stored for replay
     * @throws LeaseLostException the lease ran out while the work ran and another caller took over
     * @throws io.dupguard.StoreUnavailableException the store could not be used
     * @throws E whatever the work throws (after the claim was released or the failure stored)
     */
    public <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Class<T> type, IdempotentWork<T, E> work) throws E {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(work, "work");
        config.codec().checkSupported(type);

        if (cache != null) {
            CachedResult hit = cache.get(key, config.clock().millis());
            if (hit != null) {
                return replay(key, fingerprint, type, RecordStatus.COMPLETED, hit.fingerprint, hit.payload);
            }
        }
        String owner = newOwner();
        // maxWait is at most 100 years (InFlightPolicy), so this cannot overflow.
        long deadline =
                config.clock().millis() + config.inFlightPolicy().maxWait().toMillis();
        // The previous call's completion, if it was not awaited: its answer comes back with this
        // claim. Taken once the claim is answered; a claim that throws otherwise leaves it pending.
        Pending earlier = pending.get();
        while (true) {
            long claimSent = System.nanoTime();
            Claim claim;
            try {
                claim = store.claim(key, fingerprint, owner, config.inFlightLease());
            } catch (StoreUnavailableException unknownOutcome) {
                // The claim may still take effect (a Redis command that timed out here runs when the
                // server wakes up) and would block the key for a whole lease. Withdraw it: release
                // compares the owner, so it is harmless if the claim never happened, and on one
                // pipelined connection it runs after the claim even if it times out too.
                releaseQuietly(key, owner, unknownOutcome);
                settleWith(earlier, unknownOutcome);
                throw unknownOutcome;
            }
            if (earlier != null) {
                Pending answered = earlier;
                earlier = null;
                pending.remove();
                boolean sentAgain;
                try {
                    sentAgain = settle(answered);
                } catch (Throwable earlierFailed) {
                    // the earlier work's result is not stored: this call's work must not run
                    if (claim instanceof Claim.Claimed) {
                        releaseQuietly(key, owner, earlierFailed);
                    }
                    throw sneaky(earlierFailed);
                }
                if (sentAgain && claim instanceof Claim.Claimed) {
                    // the retry may have used much of this claim's lease, which nothing renewed
                    releaseQuietly(key, owner, null);
                    continue;
                }
                if (answered.key().equals(key)
                        && claim instanceof Claim.Existing found
                        && found.record().status() == RecordStatus.IN_PROGRESS) {
                    continue; // the claim overtook its own key's completion (a NOSCRIPT resend, a Cluster move)
                }
            }
            if (claim instanceof Claim.Claimed claimed) {
                if (claimed.takeover()) {
                    listener.onTakeover(key);
                }
                Outcome<T> first = runClaimed(key, fingerprint, owner, claimSent, work);
                if (first != null) {
                    return first;
                }
                continue; // an optimistic claim lost to a concurrent call: claim again to find its record
            }
            IdempotencyRecord record = ((Claim.Existing) claim).record();
            if (record.status() != RecordStatus.IN_PROGRESS) {
                return replay(key, fingerprint, type, record.status(), record.fingerprint(), record.payload());
            }
            if (record.fingerprint().conflictsWith(fingerprint)) {
                listener.onMismatch(key);
                throw new PayloadMismatchException(key);
            }
            if (!config.inFlightPolicy().waits()) {
                listener.onInFlight(key);
                throw new RequestInFlightException(key, "");
            }
            awaitChange(key, deadline);
        }
    }

    /**
     * Takes the store's answer to this thread's last completion that was not awaited ({@link
     * IdempotencyConfig.Builder#awaitCompletion awaitCompletion(false)}); does nothing if there is
     * none. Call it where the caller must know its results are stored before it goes on without a
     * next call: before a thread is returned to a pool for other work, at shutdown. A listener need
     * not call it before acknowledging: a completion that is not stored leaves its key in flight for
     * a lease whether the message was acknowledged or not.
     *
     * @throws LeaseLostException the completion was refused: another caller took its key over
     * @throws io.dupguard.StoreUnavailableException the store did not answer, and the completion sent
     *     again within its lease was not stored either
     */
    public void awaitCompletions() {
        Pending last = takePending();
        if (last != null) {
            settle(last);
        }
    }

    /**
     * Like {@link #execute} for work without a result.
     *
     * @param <E> the checked exception {@code work} may throw
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param work the operation; not null
     * @return whether this call ran the work or replayed it (its value is null); never null
     * @throws E what {@code work} threw on a first run
     */
    public <E extends Exception> Outcome<Void> run(
            IdempotencyKey key, Fingerprint fingerprint, ThrowingRunnable<E> work) throws E {
        return execute(key, fingerprint, Void.class, () -> {
            work.run();
            return null;
        });
    }

    /**
     * Work without a result.
     *
     * @param <E> the checked exception the work may throw
     */
    @FunctionalInterface
    public interface ThrowingRunnable<E extends Exception> {
        /**
         * Runs the work.
         *
         * @throws E what the work throws
         */
        void run() throws E;
    }

    /**
     * Claims every entry's key in one round trip (on stores that support it; others loop) and
     * reports per entry what it found: {@link BatchResult.Claimed} (this call owns the key),
     * {@link BatchResult.Replayed} (the stored result, decoded), {@link BatchResult.ReplayedFailure},
     * {@link BatchResult.InFlight} (never waited for, whatever the {@link InFlightPolicy}), {@link
     * BatchResult.Mismatch}, or {@link BatchResult.DuplicateInBatch} for a later copy of a key. The
     * caller completes or releases the claimed entries through the returned object, and closes it.
     *
     * @param <T> the result type
     * @param entries the batch, 1 to {@link #MAX_BATCH_SIZE} entries; not null, no null entries
     * @param type the result type, used to decode replays; not null
     * @return the claim; close it (try-with-resources) to release what was not completed
     * @throws IllegalArgumentException if the batch is empty or larger than {@link #MAX_BATCH_SIZE}
     * @throws io.dupguard.StoreUnavailableException the store could not be used (any claims this
     *     call made are withdrawn)
     */
    public <T> BatchClaim<T> claimBatch(List<BatchEntry> entries, Class<T> type) {
        checkBatch(entries);
        awaitCompletions();
        Objects.requireNonNull(type, "type");
        config.codec().checkSupported(type);
        return new BatchClaim<>(store, config, type, entries, newOwner());
    }

    /**
     * Claims the batch in one round trip, runs {@code work} on the entries this call claimed, then
     * records their results in one round trip and releases the rest in one more. Entries that found
     * something else get the results of {@link #claimBatch}; the executed ones get {@link
     * BatchResult.First} or {@link BatchResult.Failed}.
     *
     * <p>Partial failure: {@code work} reports each entry through {@link BatchWork.Progress} as it
     * finishes. If it throws, the entries reported done (and failures the {@link FailurePolicy} calls
     * final) are recorded, every other claim is released so a redelivery runs it, and the exception
     * propagates. If it returns, an entry it did not report is released and reported as {@link
     * BatchResult.Failed} with an {@link IllegalStateException}. As with {@link #execute}, a crash
     * before the recording leaves the claims to expire after their lease, and a retry runs the
     * work again.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param entries the batch, 1 to {@link #MAX_BATCH_SIZE} entries; not null, no null entries
     * @param type the result type, used to encode results and decode replays; not null
     * @param work the work on the claimed entries, not called when none was claimed; not null
     * @return one result per entry, in the batch's order; never null
     * @throws IllegalArgumentException if the batch is empty or larger than {@link #MAX_BATCH_SIZE}
     * @throws LeaseLostException naming the entries another caller took over (the others are recorded)
     * @throws io.dupguard.StoreUnavailableException the store could not be used
     * @throws E what {@code work} threw, after done entries were recorded and the others released
     */
    public <T, E extends Exception> List<BatchResult<T>> executeBatch(
            List<BatchEntry> entries, Class<T> type, BatchWork<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        try (BatchClaim<T> batch = claimBatch(entries, type)) {
            List<BatchEntry> claimed = batch.claimed();
            if (!claimed.isEmpty()) {
                BatchRun.run(batch, claimed, work);
            }
            return batch.results();
        }
    }

    private static void checkBatch(List<BatchEntry> entries) {
        Objects.requireNonNull(entries, "entries");
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("entries must not be empty");
        }
        if (entries.size() > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "entries must hold at most MAX_BATCH_SIZE = " + MAX_BATCH_SIZE + " entries, was " + entries.size());
        }
        for (BatchEntry e : entries) {
            Objects.requireNonNull(e, "entries must not contain null");
        }
    }

    static String newOwner() {
        return Owners.next();
    }

    /** The exception a duplicate of a stored final failure gets. */
    static ReplayedFailureException replayedFailure(IdempotencyKey key, byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        return new ReplayedFailureException(
                key, nl < 0 ? text : text.substring(0, nl), nl < 0 ? null : text.substring(nl + 1));
    }

    /** The first call's outcome, or null if an optimistic claim lost to a concurrent call. */
    private <T, E extends Exception> Outcome<T> runClaimed(
            IdempotencyKey key, Fingerprint fingerprint, String owner, long claimSent, IdempotentWork<T, E> work)
            throws E {
        long start = System.nanoTime();
        Watchdog.Renewal renewal = null;
        if (config.renewLease()) {
            Duration lease = config.inFlightLease();
            renewal = Watchdog.shared()
                    .start(lease, claimSent, () -> store.renew(key, owner, lease), () -> listener.onLeaseLost(key));
        }
        T value;
        try {
            value = work.call();
        } catch (Throwable failure) {
            stop(renewal);
            if (!onWorkFailure(key, fingerprint, owner, failure, renewal, claimSent)) {
                return null; // the failure came from racing a call that recorded the key first
            }
            throw sneaky(failure);
        }
        stop(renewal);
        byte[] payload;
        try {
            payload = config.codec().encode(value);
        } catch (RuntimeException unencodable) {
            // Nothing can be stored, so nothing may claim the key: let a retry run again.
            releaseQuietly(key, owner, unencodable);
            throw unencodable;
        }
        if (!config.awaitCompletion() && pending.get() == null) { // a nested call's answer is pending: await
            Pending sent = new Pending(
                    key,
                    fingerprint,
                    owner,
                    payload,
                    completeAsync(key, fingerprint, owner, payload),
                    leaseValidUntil(renewal, claimSent),
                    renewal);
            if (!(sent.answer() instanceof AnsweredCompletion)) {
                pending.set(sent); // this thread's next call takes the answer, however soon it came
                sent.answer().whenComplete((ok, failed) -> {
                    if (failed != null) {
                        LOG.warn(
                                "completion of {} not stored ({}); this thread's next call on the executor sends it"
                                        + " again while its lease holds, else the key stays in flight until then",
                                key,
                                failed.toString());
                    }
                });
                return first(key, fingerprint, payload, value, start);
            }
            try { // a store that does not pipeline has answered already
                settle(sent);
            } catch (ClaimLostException e) {
                return null;
            }
            return first(key, fingerprint, payload, value, start);
        }
        try {
            // A completion that meets a blip (a killed connection, a failover) is retried while the
            // lease holds: giving up would leave the claim to expire and the work to run again.
            Watchdog.retryWithinLease(
                    leaseValidUntil(renewal, claimSent),
                    config.inFlightLease(),
                    () -> store.complete(key, fingerprint, owner, RecordStatus.COMPLETED, payload, config.retention()));
        } catch (ClaimLostException e) {
            return null;
        } catch (LeaseLostException e) {
            if (renewal == null || !renewal.lost()) {
                listener.onLeaseLost(key); // once per call: the watchdog may have reported it already
            }
            throw e;
        }
        return first(key, fingerprint, payload, value, start);
    }

    private <T> Outcome<T> first(IdempotencyKey key, Fingerprint fingerprint, byte[] payload, T value, long start) {
        if (cache != null) {
            cache.put(key, new CachedResult(fingerprint, payload), cacheExpiry());
        }
        listener.onFirst(key, System.nanoTime() - start);
        return Outcome.first(value);
    }

    private CompletableFuture<Void> completeAsync(
            IdempotencyKey key, Fingerprint fingerprint, String owner, byte[] payload) {
        try {
            return store.completeAsync(key, fingerprint, owner, RecordStatus.COMPLETED, payload, config.retention())
                    .toCompletableFuture();
        } catch (RuntimeException notSent) {
            return AnsweredCompletion.of(notSent);
        }
    }

    private Pending takePending() {
        Pending last = pending.get();
        if (last != null) {
            pending.remove();
        }
        return last;
    }

    /**
     * Takes the store's answer to a completion that was not awaited. One the store could not answer
     * is sent again while its lease holds, as an awaited completion is.
     */
    private boolean settle(Pending p) {
        Throwable failed;
        try {
            // bounded by the lease (at least a second): a store whose client has no command timeout
            // must not hold the next call forever
            long wait = Math.max(p.validUntilNanos() - System.nanoTime(), 0) + ANSWER_GRACE_NANOS;
            p.answer().get(wait, TimeUnit.NANOSECONDS);
            return false;
        } catch (ExecutionException | CompletionException | CancellationException e) {
            failed = e.getCause() != null ? e.getCause() : e;
        } catch (TimeoutException e) {
            failed = new StoreUnavailableException(
                    "idempotency", "completion of " + p.key() + " not answered within its lease", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed = new StoreUnavailableException(
                    "idempotency", "interrupted while waiting for the completion of " + p.key(), e);
        }
        try {
            if (failed instanceof StoreUnavailableException) {
                Watchdog.retryWithinLease(
                        p.validUntilNanos(),
                        config.inFlightLease(),
                        () -> store.complete(
                                p.key(),
                                p.fingerprint(),
                                p.owner(),
                                RecordStatus.COMPLETED,
                                p.payload(),
                                config.retention()));
                return true;
            }
            throw sneaky(failed);
        } catch (Throwable notStored) {
            if (cache != null) {
                cache.remove(p.key()); // cached when sent: not what the store holds
            }
            if (notStored instanceof LeaseLostException
                    && (p.renewal() == null || !p.renewal().lost())) {
                listener.onLeaseLost(p.key()); // once per call: the watchdog may have reported it already
            }
            throw sneaky(notStored);
        }
    }

    /** {@link #settle} when a claim of this call failed: the earlier failure first, this one suppressed. */
    private void settleWith(Pending earlier, RuntimeException claimFailure) {
        if (earlier == null) {
            return;
        }
        pending.remove();
        try {
            settle(earlier);
        } catch (Throwable earlierFailed) {
            earlierFailed.addSuppressed(claimFailure);
            throw sneaky(earlierFailed);
        }
    }

    /**
     * Releases or stores the failure. False if an optimistic store reports that another call recorded
     * the key meanwhile and undid this call's work: its failure (often the other call's effect, such
     * as a unique violation on the same order) is then not this key's outcome.
     */
    private boolean onWorkFailure(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            Throwable failure,
            Watchdog.Renewal renewal,
            long claimSent) {
        boolean stored = false;
        try {
            if (config.failurePolicy().isFinal(failure)) {
                byte[] encoded = encodeFailure(failure);
                Watchdog.retryWithinLease(
                        leaseValidUntil(renewal, claimSent),
                        config.inFlightLease(),
                        () -> store.complete(
                                key, fingerprint, owner, RecordStatus.FAILED, encoded, config.retention()));
                stored = true;
            } else {
                store.release(key, owner);
            }
        } catch (ClaimLostException lost) {
            return false;
        } catch (RuntimeException storeFailure) {
            // The work's own failure is what the caller must see; the claim then simply expires.
            failure.addSuppressed(storeFailure);
        }
        listener.onFailure(key, failure, stored);
        return true;
    }

    /** Until when (nanoTime) the claim's lease holds: the last renewal's, or the claim's own. */
    private long leaseValidUntil(Watchdog.Renewal renewal, long claimSent) {
        return renewal != null
                ? renewal.validUntilNanos()
                : claimSent + config.inFlightLease().toNanos();
    }

    private void releaseQuietly(IdempotencyKey key, String owner, Throwable failure) {
        try {
            store.release(key, owner);
        } catch (RuntimeException storeFailure) {
            if (failure != null) {
                failure.addSuppressed(storeFailure);
            }
        }
    }

    private <T> Outcome<T> replay(
            IdempotencyKey key,
            Fingerprint requested,
            Class<T> type,
            RecordStatus status,
            Fingerprint stored,
            byte[] payload) {
        if (stored.conflictsWith(requested)) {
            listener.onMismatch(key);
            throw new PayloadMismatchException(key);
        }
        if (status == RecordStatus.FAILED) {
            listener.onReplay(key);
            throw replayedFailure(key, payload);
        }
        T value = config.codec().decode(payload, type);
        if (cache != null) {
            cache.put(key, new CachedResult(stored, payload), cacheExpiry());
        }
        listener.onReplay(key);
        return Outcome.replayed(value);
    }

    private void awaitChange(IdempotencyKey key, long deadlineMillis) {
        long pause = MIN_POLL_NANOS;
        while (true) {
            long remaining = deadlineMillis - config.clock().millis();
            if (remaining <= 0) {
                listener.onInFlight(key);
                throw new RequestInFlightException(
                        key, " after waiting " + config.inFlightPolicy().maxWait());
            }
            LockSupport.parkNanos(Math.min(pause, Duration.ofMillis(remaining).toNanos()));
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
            var current = store.find(key);
            if (current.isEmpty() || current.get().status() != RecordStatus.IN_PROGRESS) {
                return;
            }
        }
    }

    private long cacheExpiry() {
        Duration ttl =
                config.localCacheTtl().compareTo(config.retention()) < 0 ? config.localCacheTtl() : config.retention();
        return config.clock().millis() + ttl.toMillis();
    }

    static byte[] encodeFailure(Throwable failure) {
        String message = failure.getMessage();
        String text = failure.getClass().getName() + (message == null ? "" : "\n" + message);
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void stop(Watchdog.Renewal renewal) {
        if (renewal != null) {
            renewal.stop();
        }
    }

    @SuppressWarnings("unchecked")
    static <X extends Throwable> RuntimeException sneaky(Throwable t) throws X {
        throw (X) t;
    }
}
