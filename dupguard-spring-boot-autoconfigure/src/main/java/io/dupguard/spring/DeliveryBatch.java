package io.dupguard.spring;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One batch of deliveries (AMQP messages, Kafka records) deduplicated for a batch listener: every
 * delivery's key is claimed and the listener is called once with the deliveries that are new, so
 * its failure releases them all (in the transactional mode: rolls back the one transaction that holds
 * the claims and the listener's writes). Duplicates of completed keys are left out; a batch of
 * nothing but duplicates does not call the listener. Where the execution {@linkplain
 * IdempotentExecution#batches() batches} (store and transactional modes) the keys are claimed in one
 * round trip and recorded in one; otherwise (backstop) key by key, each claim nested in the previous. Used by the broker
 * integrations; not thread-safe (one per batch).
 *
 * @param <M> the delivery type
 */
public final class DeliveryBatch<M> {
    /** The listener of the new deliveries. */
    @FunctionalInterface
    public interface Listener<M> {
        /**
         * Handles the new deliveries.
         *
         * @param fresh the deliveries whose keys this call claimed, plus those without a key; never empty
         * @throws Exception to release every claim of the batch
         */
        void accept(List<M> fresh) throws Exception;
    }

    private final List<M> deliveries = new ArrayList<>();
    private final List<IdempotencyKey> keys = new ArrayList<>();
    private final List<Fingerprint> fingerprints = new ArrayList<>();

    /**
     * Adds a delivery.
     *
     * @param delivery the delivery; not null
     * @param key its key, or null for a delivery that passes undeduplicated
     * @param fingerprint its fingerprint; not null
     */
    public void add(M delivery, IdempotencyKey key, Fingerprint fingerprint) {
        deliveries.add(Objects.requireNonNull(delivery, "delivery"));
        keys.add(key);
        fingerprints.add(Objects.requireNonNull(fingerprint, "fingerprint"));
    }

    /**
     * Claims every key through {@code execution} and calls {@code listener} once with the new
     * deliveries.
     *
     * @param execution where the claims are recorded; not null
     * @param listener the batch listener; not null
     * @throws Exception what the listener threw, or the execution's exceptions (payload mismatch, in
     *     flight elsewhere, store unavailable)
     */
    public void run(IdempotentExecution execution, Listener<M> listener) throws Exception {
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(listener, "listener");
        List<BatchEntry> entries = new ArrayList<>();
        for (int i = 0; i < deliveries.size(); i++) {
            if (keys.get(i) != null) {
                entries.add(new BatchEntry(keys.get(i), fingerprints.get(i)));
            }
        }
        if (!execution.batches() || entries.size() > Idempotency.MAX_BATCH_SIZE) {
            run(execution, listener, 0, List.of());
        } else if (entries.isEmpty()) {
            listener.accept(List.copyOf(deliveries));
        } else {
            runClaimed(execution, listener, entries);
        }
    }

    /**
     * Claims every key in one round trip, calls the listener once with the claimed and keyless
     * deliveries, records the claimed ones; then reports an entry in flight elsewhere or reused with
     * another payload as {@link io.dupguard.idempotency.RequestInFlightException} / {@link
     * io.dupguard.idempotency.PayloadMismatchException} (the rest of the batch is done by then).
     */
    private void runClaimed(IdempotentExecution execution, Listener<M> listener, List<BatchEntry> entries)
            throws Exception {
        boolean[] called = {false};
        List<BatchResult<Void>> results = execution.executeBatch(entries, (claimed, progress) -> {
            called[0] = true;
            Set<IdempotencyKey> mine = new HashSet<>();
            for (BatchEntry e : claimed) {
                mine.add(e.key());
            }
            List<M> fresh = new ArrayList<>();
            for (int i = 0; i < deliveries.size(); i++) {
                if (keys.get(i) == null || mine.contains(keys.get(i))) {
                    fresh.add(deliveries.get(i));
                }
            }
            listener.accept(List.copyOf(fresh));
            for (BatchEntry e : claimed) {
                progress.done(e.key(), null);
            }
        });
        if (!called[0] && entries.size() < deliveries.size()) {
            List<M> keyless = new ArrayList<>();
            for (int i = 0; i < deliveries.size(); i++) {
                if (keys.get(i) == null) {
                    keyless.add(deliveries.get(i));
                }
            }
            listener.accept(List.copyOf(keyless));
        }
        for (BatchResult<Void> r : results) {
            if (r instanceof BatchResult.InFlight<Void> f) {
                throw new RequestInFlightException(f.key(), "a delivery of the batch is still processing elsewhere");
            }
            if (r instanceof BatchResult.Mismatch<Void> m) {
                throw new PayloadMismatchException(m.key());
            }
        }
    }

    /** Claims delivery {@code i} and recurses inside its claim. */
    private void run(IdempotentExecution execution, Listener<M> listener, int i, List<M> fresh) throws Exception {
        if (i == deliveries.size()) {
            if (!fresh.isEmpty()) {
                listener.accept(List.copyOf(fresh));
            }
            return;
        }
        M m = deliveries.get(i);
        IdempotencyKey k = keys.get(i);
        List<M> withThis = new ArrayList<>(fresh);
        withThis.add(m);
        if (k == null) {
            run(execution, listener, i + 1, withThis);
            return;
        }
        boolean[] claimed = {false};
        execution.execute(k, fingerprints.get(i), Void.class, () -> {
            claimed[0] = true;
            run(execution, listener, i + 1, withThis);
            return null;
        });
        if (!claimed[0]) { // a duplicate: replayed, left out
            run(execution, listener, i + 1, fresh);
        }
    }

    /**
     * Proceeds with an intercepted listener call, passing checked exceptions on as they are.
     *
     * @param invocation the listener call; not null
     * @throws Exception what the listener threw ({@link java.lang.reflect.UndeclaredThrowableException}
     *     for a throwable that is neither an exception nor an error)
     */
    public static void proceed(org.aopalliance.intercept.MethodInvocation invocation) throws Exception {
        try {
            invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new java.lang.reflect.UndeclaredThrowableException(t);
        }
    }
}
