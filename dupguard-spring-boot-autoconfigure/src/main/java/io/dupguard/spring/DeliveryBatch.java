package io.dupguard.spring;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One batch of deliveries (AMQP messages, Kafka records) deduplicated for a batch listener: each
 * delivery's key is claimed, and the listener is called once, inside every claim, with the
 * deliveries that are new — so its failure releases them all (in the transactional modes: rolls back
 * the one transaction that holds them and the listener's writes). Duplicates of completed keys are
 * left out; a batch of nothing but duplicates does not call the listener. Used by the broker
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
        run(Objects.requireNonNull(execution, "execution"), Objects.requireNonNull(listener, "listener"), 0, List.of());
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
