package io.dupguard.spring;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * The dedup engine of batch listeners (Kafka records, AMQP messages): takes one batch, runs the
 * listener on its new deliveries, and answers how the batch ends — every delivery done, or the batch
 * <b>stopped at delivery k</b>: deliveries before k are done (ran with their effect recorded, or left
 * out as duplicates), k is refused, in flight elsewhere or failed in the listener, and deliveries
 * after k were not acted on or are done and replay on redelivery. The integrations map a stop onto
 * their framework's partial-batch protocol (Spring Kafka: {@code BatchListenerFailedException} for
 * record k, so the offsets before k commit and the consumer seeks back to k).
 *
 * <p>Per delivery:
 *
 * <ul>
 *   <li><b>refused</b> ({@link #refuse}: no key, an invalid key; or the same key twice in the batch
 *       with different fingerprints): the deliveries before it run, then the batch stops at it.
 *   <li><b>new</b>: claimed (where the execution {@linkplain IdempotentExecution#batches() batches},
 *       in one round trip; otherwise key by key, each claim nested in the previous) and passed to
 *       the listener in one call with the other new ones and the keyless ones; recorded when it
 *       returns (in the transactional modes in one transaction with its writes).
 *   <li><b>duplicate</b> of a completed key, or a later copy of a key with the same fingerprint:
 *       left out.
 *   <li><b>reused with another payload</b>: the batch stops at it, refused with a {@link
 *       PayloadMismatchException}.
 *   <li><b>in flight elsewhere</b>: after the rest of the batch, claimed alone through {@link
 *       IdempotentExecution#execute}, which waits as the executor's in-flight policy says; still in
 *       flight then, the batch stops at it ({@link RequestInFlightException}).
 *   <li><b>the listener fails at delivery k</b> (the {@code locate} function names it): the batch
 *       stops at k and the deliveries before k stay done with their records. In store mode they are
 *       recorded as they ran; in the transactional modes, whose transaction the failure rolled back,
 *       the listener is called again with the new deliveries before k alone.
 *   <li><b>the listener fails without naming a delivery</b>: the exception propagates; every claim of
 *       the batch is released (transactional modes: with the listener's writes), so a retry runs the
 *       whole batch again — in store mode including the effects the listener had already made.
 *   <li><b>the listener returns with deliveries it did not finish</b> (a Kafka {@code nack}): the
 *       ones before the first unfinished delivery are recorded, the others released.
 * </ul>
 *
 * <p>Not thread-safe (one per batch).
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
         * @param fresh the deliveries whose keys this call claimed, plus those without a key, in batch
         *     order; never empty
         * @return null when every delivery of {@code fresh} is done; else the first one that is not
         *     (it and the later ones are released)
         * @throws Exception the listener's failure; name the delivery it failed at through the
         *     {@code locate} function of {@link #run}
         */
        M accept(List<M> fresh) throws Exception;
    }

    /** How a batch ended early. */
    public sealed interface Stop<M> {
        /**
         * The position of the delivery the batch stopped at, in the order deliveries were added.
         *
         * @return the index
         */
        int index();

        /**
         * The delivery the batch stopped at.
         *
         * @return the delivery; never null
         */
        M delivery();
    }

    /**
     * The delivery cannot be deduplicated; retrying cannot change that.
     *
     * @param <M> the delivery type
     * @param index its position
     * @param delivery the delivery
     * @param reason why: what {@link #refuse} was given, or a {@link PayloadMismatchException}
     */
    public record Refused<M>(int index, M delivery, RuntimeException reason) implements Stop<M> {}

    /**
     * The delivery's key is still processing elsewhere after the in-flight wait: redeliver it later.
     *
     * @param <M> the delivery type
     * @param index its position
     * @param delivery the delivery
     * @param cause the executor's exception
     */
    public record InFlight<M>(int index, M delivery, RequestInFlightException cause) implements Stop<M> {}

    /**
     * The listener failed at this delivery; the ones before it are done.
     *
     * @param <M> the delivery type
     * @param index its position
     * @param delivery the delivery
     * @param cause what the listener threw
     */
    public record Failed<M>(int index, M delivery, Exception cause) implements Stop<M> {}

    /**
     * The listener returned with this delivery unfinished (a nack): it and the later ones are
     * released; the framework redelivers them.
     *
     * @param <M> the delivery type
     * @param index its position
     * @param delivery the delivery
     */
    public record Unfinished<M>(int index, M delivery) implements Stop<M> {}

    private final List<M> deliveries = new ArrayList<>();
    private final List<IdempotencyKey> keys = new ArrayList<>();
    private final List<Fingerprint> fingerprints = new ArrayList<>();
    /** Index of each delivery (identity). */
    private final Map<M, Integer> positions = new IdentityHashMap<>();
    /** Later copies of a key with the same fingerprint: skipped. */
    private final List<Boolean> skipped = new ArrayList<>();

    private final Map<IdempotencyKey, Fingerprint> seen = new HashMap<>();
    /** Position of the first delivery of each key. */
    private final Map<IdempotencyKey, Integer> firstAt = new HashMap<>();

    private int refusedAt = -1;
    private RuntimeException refusal;
    /** What the listener got in its last call: the list its failure names a delivery of. */
    private List<M> lastCall = List.of();

    /**
     * Adds a delivery. A later copy of a key already added is left out when its fingerprint is the
     * same, and refused when it differs.
     *
     * @param delivery the delivery; not null
     * @param key its key, or null for a delivery that passes undeduplicated
     * @param fingerprint its fingerprint; not null
     */
    public void add(M delivery, IdempotencyKey key, Fingerprint fingerprint) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        int i = append(delivery, key, fingerprint);
        if (key == null) {
            return;
        }
        Fingerprint first = seen.putIfAbsent(key, fingerprint);
        if (first == null) {
            firstAt.put(key, i);
        } else {
            if (first.equals(fingerprint)) {
                skipped.set(i, true);
            } else {
                refuseAt(i, new PayloadMismatchException(key));
            }
        }
    }

    /**
     * Adds a delivery the integration refuses (no key, an invalid key): the batch stops at it.
     *
     * @param delivery the delivery; not null
     * @param reason why; not null
     */
    public void refuse(M delivery, RuntimeException reason) {
        Objects.requireNonNull(reason, "reason");
        refuseAt(append(delivery, null, Fingerprint.none()), reason);
    }

    private int append(M delivery, IdempotencyKey key, Fingerprint fingerprint) {
        Objects.requireNonNull(delivery, "delivery");
        int i = deliveries.size();
        deliveries.add(delivery);
        keys.add(key);
        fingerprints.add(fingerprint);
        skipped.add(false);
        positions.put(delivery, i);
        return i;
    }

    private void refuseAt(int i, RuntimeException reason) {
        if (refusedAt < 0) {
            refusedAt = i;
            refusal = reason;
        }
    }

    /**
     * The position of a delivery added to this batch.
     *
     * @param delivery a delivery (the same object that was added)
     * @return its index, or -1
     */
    public int indexOf(M delivery) {
        Integer i = positions.get(delivery);
        return i == null ? -1 : i;
    }

    /**
     * Runs the batch: the new deliveries before the first refused one through {@code listener},
     * then the ones in flight elsewhere one by one.
     *
     * @param execution where the claims are recorded; not null
     * @param listener the batch listener; not null
     * @param locate the delivery of {@code fresh} a listener's exception names, or null when it names
     *     none; not null
     * @return null if every delivery is done; else where and why the batch stopped
     * @throws Exception what the listener threw without naming a delivery (every claim released), or
     *     the execution's (store unavailable)
     */
    public Stop<M> run(IdempotentExecution execution, Listener<M> listener, BiFunction<Exception, List<M>, M> locate)
            throws Exception {
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(locate, "locate");
        int end = refusedAt < 0 ? deliveries.size() : refusedAt;
        Stop<M> stop = runRange(execution, listener, locate, end);
        if (stop != null) {
            return stop;
        }
        return refusedAt < 0 ? null : new Refused<>(refusedAt, deliveries.get(refusedAt), refusal);
    }

    /** Runs deliveries {@code [0, end)}. */
    private Stop<M> runRange(
            IdempotentExecution execution, Listener<M> listener, BiFunction<Exception, List<M>, M> locate, int end)
            throws Exception {
        List<BatchEntry> entries = new ArrayList<>();
        boolean keyless = false;
        for (int i = 0; i < end; i++) {
            if (skipped.get(i)) {
                continue;
            }
            if (keys.get(i) != null) {
                entries.add(new BatchEntry(keys.get(i), fingerprints.get(i)));
            } else {
                keyless = true;
            }
        }
        if (entries.isEmpty()) {
            if (!keyless) {
                return null;
            }
            List<M> fresh = new ArrayList<>();
            for (int i = 0; i < end; i++) {
                if (!skipped.get(i)) {
                    fresh.add(deliveries.get(i));
                }
            }
            return call(execution, listener, locate, fresh, end);
        }
        if (!execution.batches() || entries.size() > Idempotency.MAX_BATCH_SIZE) {
            return oneByOne(execution, listener, locate, end);
        }
        return claimed(execution, listener, locate, entries, end);
    }

    /**
     * Calls the listener where no claim is held (keyless deliveries only): a located failure re-runs
     * the part before it.
     */
    private Stop<M> call(
            IdempotentExecution execution,
            Listener<M> listener,
            BiFunction<Exception, List<M>, M> locate,
            List<M> fresh,
            int end)
            throws Exception {
        M unfinished;
        try {
            unfinished = accept(listener, fresh);
        } catch (Exception e) {
            return failedAt(execution, listener, locate, e, end, true); // no claims, nothing rolled back
        }
        if (unfinished == null) {
            return null;
        }
        return new Unfinished<>(indexOf(unfinished), unfinished);
    }

    /** Calls the listener, remembering what it got. */
    private M accept(Listener<M> listener, List<M> fresh) throws Exception {
        lastCall = List.copyOf(fresh);
        return listener.accept(lastCall);
    }

    /**
     * A listener failure: located at k (within the deliveries before {@code end}), the part before k
     * runs again unless {@code prefixKept} (its records were kept) and the batch stops at k;
     * otherwise it propagates.
     */
    private Stop<M> failedAt(
            IdempotentExecution execution,
            Listener<M> listener,
            BiFunction<Exception, List<M>, M> locate,
            Exception e,
            int end,
            boolean prefixKept)
            throws Exception {
        M at = locate.apply(e, lastCall);
        int k = at == null ? -1 : indexOf(at);
        if (k < 0 || k >= end) {
            throw e;
        }
        if (!prefixKept && k > 0) {
            Stop<M> earlier = runRange(execution, listener, locate, k);
            if (earlier != null) {
                return earlier;
            }
        }
        return new Failed<>(k, at, e);
    }

    /** Claims every key in one round trip; then the ones in flight elsewhere one by one. */
    private Stop<M> claimed(
            IdempotentExecution execution,
            Listener<M> listener,
            BiFunction<Exception, List<M>, M> locate,
            List<BatchEntry> entries,
            int end)
            throws Exception {
        boolean store = execution.mode() == IdempotentExecution.Mode.STORE;
        Slot<M> stopped = new Slot<>();
        boolean[] called = {false};
        List<BatchEntry> unclaimedBefore = new ArrayList<>();
        List<BatchResult<Void>> results;
        try {
            results = execution.executeBatch(entries, (claimedEntries, progress) -> {
                called[0] = true;
                java.util.Set<IdempotencyKey> mine = new java.util.HashSet<>();
                for (BatchEntry e : claimedEntries) {
                    mine.add(e.key());
                }
                List<M> fresh = new ArrayList<>();
                for (int i = 0; i < end; i++) {
                    if (!skipped.get(i) && (keys.get(i) == null || mine.contains(keys.get(i)))) {
                        fresh.add(deliveries.get(i));
                    }
                }
                int doneBefore;
                try {
                    M unfinished = accept(listener, fresh);
                    doneBefore = unfinished == null ? end : indexOf(unfinished);
                    if (unfinished != null) {
                        stopped.v = new Unfinished<>(doneBefore, unfinished);
                    }
                } catch (Exception e) {
                    M at = store ? locate.apply(e, lastCall) : null;
                    int k = at == null ? -1 : indexOf(at);
                    if (k < 0 || k >= end) {
                        throw e;
                    }
                    // store mode: what ran before k is recorded as the other claims are released
                    for (int i = 0; i < k; i++) {
                        if (keys.get(i) != null && !skipped.get(i)) {
                            if (mine.contains(keys.get(i))) {
                                progress.done(keys.get(i), null);
                            } else {
                                unclaimedBefore.add(new BatchEntry(keys.get(i), fingerprints.get(i)));
                            }
                        }
                    }
                    stopped.v = new Failed<>(k, at, e);
                    throw e;
                }
                for (int i = 0; i < doneBefore; i++) {
                    if (keys.get(i) != null && !skipped.get(i) && mine.contains(keys.get(i))) {
                        progress.done(keys.get(i), null);
                    }
                }
            });
        } catch (Exception e) {
            if (stopped.v instanceof Failed<M> f) {
                // a duplicate before k may have been a mismatch or in flight: its offset must not commit
                Stop<M> earlier = unclaimedBefore.isEmpty() ? null : check(execution, unclaimedBefore);
                return earlier != null ? earlier : f;
            }
            return failedAt(execution, listener, locate, e, end, false);
        }
        if (!called[0]) { // nothing claimed: the keyless deliveries alone
            List<M> keylessOnes = new ArrayList<>();
            for (int i = 0; i < end; i++) {
                if (keys.get(i) == null && !skipped.get(i)) {
                    keylessOnes.add(deliveries.get(i));
                }
            }
            if (!keylessOnes.isEmpty()) {
                stopped.v = call(execution, listener, locate, keylessOnes, end);
            }
        }
        int limit = stopped.v == null ? end : stopped.v.index();
        for (BatchResult<Void> r : results) {
            int i = indexOfKey(r.key(), end);
            if (i >= limit) {
                continue;
            }
            if (r instanceof BatchResult.Mismatch<Void>) {
                return new Refused<>(i, deliveries.get(i), new PayloadMismatchException(r.key()));
            }
            if (r instanceof BatchResult.InFlight<Void>) {
                Stop<M> s = alone(execution, listener, i);
                if (s != null) {
                    return s;
                }
            }
        }
        return stopped.v;
    }

    private int indexOfKey(IdempotencyKey key, int end) {
        Integer i = firstAt.get(key);
        return i == null || i >= end ? -1 : i;
    }

    /**
     * The first of {@code entries} (duplicates when they were claimed) that is now reused with
     * another payload or in flight; claims nothing (what it claims is released at once).
     */
    private Stop<M> check(IdempotentExecution execution, List<BatchEntry> entries) throws Exception {
        List<BatchResult<Void>> results = execution.executeBatch(entries, (claimed, progress) -> {});
        int first = Integer.MAX_VALUE;
        Stop<M> stop = null;
        for (BatchResult<Void> r : results) {
            int i = indexOfKey(r.key(), deliveries.size());
            if (i < first && (r instanceof BatchResult.Mismatch<Void> || r instanceof BatchResult.InFlight<Void>)) {
                first = i;
                stop = r instanceof BatchResult.Mismatch<Void>
                        ? new Refused<>(i, deliveries.get(i), new PayloadMismatchException(r.key()))
                        : new InFlight<>(
                                i,
                                deliveries.get(i),
                                new RequestInFlightException(r.key(), "still processing elsewhere"));
            }
        }
        return stop;
    }

    /** Delivery {@code i} alone through {@link IdempotentExecution#execute}, which waits for a key in flight. */
    private Stop<M> alone(IdempotentExecution execution, Listener<M> listener, int i) {
        M m = deliveries.get(i);
        Slot<M> unfinished = new Slot<>();
        try {
            execution.execute(keys.get(i), fingerprints.get(i), Void.class, () -> {
                M u = accept(listener, List.of(m));
                if (u != null) {
                    unfinished.v = new Unfinished<>(i, m);
                    throw new UnfinishedException();
                }
                return null;
            });
        } catch (UnfinishedException e) {
            return unfinished.v;
        } catch (RequestInFlightException e) {
            return new InFlight<>(i, m, e);
        } catch (PayloadMismatchException e) {
            return new Refused<>(i, m, e);
        } catch (Exception e) {
            return new Failed<>(i, m, e);
        }
        return null;
    }

    /** Where a lambda leaves a stop. */
    private static final class Slot<M> {
        Stop<M> v;
    }

    /** A nack inside a single claim: releases it. */
    private static final class UnfinishedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnfinishedException() {
            super("delivery not finished by the listener", null, false, false);
        }
    }

    /**
     * Key by key: claims delivery {@code i} and recurses inside its claim; the listener is called at
     * the end with the new ones. A key in flight elsewhere (after the executor's wait) or reused with
     * another payload stops the batch there: the listener runs on the ones before it.
     */
    private Stop<M> oneByOne(
            IdempotentExecution execution, Listener<M> listener, BiFunction<Exception, List<M>, M> locate, int end)
            throws Exception {
        Slot<M> stop = new Slot<>();
        try {
            nested(execution, listener, 0, end, List.of(), stop);
        } catch (UnfinishedException e) {
            // every claim released (transactional modes: with the writes): the part before it again
            Stop<M> earlier = stop.v.index() > 0 ? runRange(execution, listener, locate, stop.v.index()) : null;
            return earlier != null ? earlier : stop.v;
        } catch (Exception e) {
            return failedAt(execution, listener, locate, e, end, false);
        }
        return stop.v;
    }

    private void nested(
            IdempotentExecution execution, Listener<M> listener, int i, int end, List<M> fresh, Slot<M> stop)
            throws Exception {
        if (i == end) {
            if (!fresh.isEmpty()) {
                M u = accept(listener, fresh);
                if (u != null) {
                    stop.v = new Unfinished<>(indexOf(u), u);
                    throw new UnfinishedException(); // releases every claim; the framework redelivers
                }
            }
            return;
        }
        M m = deliveries.get(i);
        IdempotencyKey k = keys.get(i);
        if (skipped.get(i)) {
            nested(execution, listener, i + 1, end, fresh, stop);
            return;
        }
        List<M> withThis = new ArrayList<>(fresh);
        withThis.add(m);
        if (k == null) {
            nested(execution, listener, i + 1, end, withThis, stop);
            return;
        }
        boolean[] claimed = {false};
        try {
            execution.execute(k, fingerprints.get(i), Void.class, () -> {
                claimed[0] = true;
                nested(execution, listener, i + 1, end, withThis, stop);
                return null;
            });
        } catch (RequestInFlightException | PayloadMismatchException e) {
            if (claimed[0]) {
                throw e;
            }
            Stop<M> here = e instanceof RequestInFlightException f
                    ? new InFlight<>(i, m, f)
                    : new Refused<>(i, m, (PayloadMismatchException) e);
            nested(execution, listener, end, end, fresh, stop); // the ones before it
            stop.v = here;
            return;
        }
        if (!claimed[0]) { // a duplicate: replayed, left out
            nested(execution, listener, i + 1, end, fresh, stop);
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
