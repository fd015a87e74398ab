package io.dupguard.idempotency;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.internal.KeyOrder;
import io.dupguard.internal.Maps;
import io.dupguard.internal.Watchdog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of a batch claimed in one round trip ({@link Idempotency#claimBatch}): what each entry
 * found, and the completion and release of the entries this call owns, each one round trip for the
 * whole batch on the stores that support it.
 *
 * <p>While entries are held their leases are renewed (when the configuration renews leases).
 * {@link #close()} releases every entry still held, so a try-with-resources block never leaves a
 * claim behind. Not thread-safe: complete and release from one thread (leases are renewed on the
 * watchdog's thread).
 *
 * @param <T> the result type
 */
public final class BatchClaim<T> implements AutoCloseable {
    private static final Comparator<BatchEntry> STORE_ORDER = (a, b) -> KeyOrder.KEYS.compare(a.key(), b.key());

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final Class<T> type;
    private final String owner;
    private final long claimSent;
    private final List<BatchResult<T>> results;
    private final Map<IdempotencyKey, Integer> index;
    /** Claimed and neither completed nor released, with the fingerprint claimed. */
    private final Map<IdempotencyKey, BatchEntry> held;

    private final Set<IdempotencyKey> lost = ConcurrentHashMap.newKeySet();
    private final Watchdog.Renewal renewal;

    BatchClaim(
            IdempotencyStore store, IdempotencyConfig config, Class<T> type, List<BatchEntry> entries, String owner) {
        this.store = store;
        this.config = config;
        this.type = type;
        this.owner = owner;
        this.index = Maps.hashMap(entries.size());
        this.held = new ConcurrentHashMap<>(entries.size()); // sized in entries, not table slots
        List<BatchResult<T>> found = new ArrayList<>(entries.size());
        List<BatchEntry> distinct = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            BatchEntry e = entries.get(i);
            Integer first = index.putIfAbsent(e.key(), i);
            found.add(first == null ? null : new BatchResult.DuplicateInBatch<>(e, first));
            if (first == null) {
                distinct.add(e);
            }
        }
        // One order for every batch, so two batches inserting overlapping keys cannot deadlock.
        distinct.sort(STORE_ORDER);
        this.claimSent = System.nanoTime();
        List<Claim> claims;
        try {
            claims = store.claimAll(distinct, owner, config.inFlightLease());
        } catch (StoreUnavailableException unknownOutcome) {
            // As for one key: some claims may have taken effect; withdraw them under our owner.
            releaseQuietly(distinct.stream().map(BatchEntry::key).toList(), unknownOutcome);
            throw unknownOutcome;
        }
        for (int i = 0; i < distinct.size(); i++) {
            if (claims.get(i) instanceof Claim.Claimed c) {
                held.put(distinct.get(i).key(), distinct.get(i));
                found.set(index.get(distinct.get(i).key()), new BatchResult.Claimed<>(distinct.get(i), c.takeover()));
            }
        }
        try {
            for (int i = 0; i < distinct.size(); i++) {
                BatchEntry e = distinct.get(i);
                BatchResult<T> r = claims.get(i) instanceof Claim.Existing existing
                        ? existing(e, existing.record())
                        : found.get(index.get(e.key()));
                found.set(index.get(e.key()), r);
            }
        } catch (RuntimeException undecodable) {
            releaseQuietly(List.copyOf(held.keySet()), undecodable);
            throw undecodable;
        }
        this.results = found;
        for (BatchResult<T> r : found) {
            if (r instanceof BatchResult.Claimed<T> c && c.takeover()) {
                config.listener().onTakeover(c.key());
            }
        }
        this.renewal = config.renewLease() && !held.isEmpty()
                ? Watchdog.shared().start(config.inFlightLease(), claimSent, this::renewHeld, this::onLost)
                : null;
    }

    private BatchResult<T> existing(BatchEntry e, IdempotencyRecord record) {
        IdempotencyListener listener = config.listener();
        if (record.fingerprint().conflictsWith(e.fingerprint())) {
            listener.onMismatch(e.key());
            return new BatchResult.Mismatch<>(e);
        }
        return switch (record.status()) {
            case IN_PROGRESS -> {
                listener.onInFlight(e.key());
                yield new BatchResult.InFlight<>(e);
            }
            case FAILED -> {
                listener.onReplay(e.key());
                yield new BatchResult.ReplayedFailure<>(e, Idempotency.replayedFailure(e.key(), record.payload()));
            }
            case COMPLETED -> {
                T value = config.codec().decode(record.payload(), type);
                listener.onReplay(e.key());
                yield new BatchResult.Replayed<>(e, value);
            }
        };
    }

    /**
     * What each entry found, in the batch's order; entries completed or released through this
     * object keep their {@link BatchResult.Claimed} result.
     *
     * @return one result per entry; never null
     */
    public List<BatchResult<T>> results() {
        return List.copyOf(results);
    }

    /**
     * The entries this call still holds (claimed, neither completed nor released), in batch order.
     *
     * @return the held entries; never null
     */
    public List<BatchEntry> claimed() {
        List<BatchEntry> out = new ArrayList<>();
        for (BatchResult<T> r : results) {
            if (r instanceof BatchResult.Claimed<T> c && held.containsKey(c.key())) {
                out.add(c.entry());
            }
        }
        return out;
    }

    /**
     * Records the results of held entries in one round trip (on stores that support it). Entries
     * whose lease another caller took over are not recorded; the others are.
     *
     * @param values the result of each entry to complete (a null value is a null result); keys not
     *     in the map stay held
     * @throws IllegalArgumentException if a key is not held by this batch; nothing is recorded then
     * @throws LeaseLostException naming the keys another caller took over, after the others were
     *     recorded
     * @throws io.dupguard.StoreUnavailableException if the store stayed unreachable while the leases held
     */
    public void complete(Map<IdempotencyKey, ? extends T> values) {
        List<BatchCompletion> completions = new ArrayList<>(values.size());
        for (Map.Entry<IdempotencyKey, ? extends T> v : values.entrySet()) {
            BatchEntry e = heldEntry(v.getKey());
            completions.add(new BatchCompletion(
                    e.key(),
                    e.fingerprint(),
                    RecordStatus.COMPLETED,
                    config.codec().encode(v.getValue())));
        }
        record(completions);
    }

    /**
     * Releases held entries in one round trip (on stores that support it), so a retry may run them.
     *
     * @param keys the keys to release; each must be held by this batch
     * @throws IllegalArgumentException if a key is not held by this batch; nothing is released then
     */
    public void release(Collection<IdempotencyKey> keys) {
        List<IdempotencyKey> release = new ArrayList<>(keys.size());
        for (IdempotencyKey k : keys) {
            release.add(heldEntry(k).key());
        }
        if (release.isEmpty()) {
            return;
        }
        release.forEach(held::remove);
        stopIfIdle();
        store.releaseAll(release, owner);
    }

    /** Releases every entry still held; does nothing when none is. */
    @Override
    public void close() {
        release(List.copyOf(held.keySet()));
        stopIfIdle();
    }

    /** Records completions (results and final failures) in one round trip, retried while the leases hold. */
    void record(List<BatchCompletion> completions) {
        if (completions.isEmpty()) {
            return;
        }
        Set<IdempotencyKey> refused = ConcurrentHashMap.newKeySet();
        long validUntil = renewal != null
                ? renewal.validUntilNanos()
                : claimSent + config.inFlightLease().toNanos();
        Watchdog.retryWithinLease(validUntil, config.inFlightLease(), () -> {
            refused.clear();
            refused.addAll(store.completeAll(completions, owner, config.retention()));
        });
        completions.forEach(c -> held.remove(c.key()));
        stopIfIdle();
        if (!refused.isEmpty()) {
            for (IdempotencyKey k : refused) {
                if (lost.add(k)) {
                    config.listener().onLeaseLost(k);
                }
            }
            throw new LeaseLostException(
                    refused.iterator().next().toString(),
                    "claims on " + refused + " are no longer held by this batch; the others were recorded");
        }
    }

    /** Turns the results of the executed entries into their final form. */
    void settle(Map<IdempotencyKey, BatchResult<T>> outcomes) {
        for (Map.Entry<IdempotencyKey, BatchResult<T>> o : outcomes.entrySet()) {
            results.set(index.get(o.getKey()), o.getValue());
        }
    }

    BatchEntry heldEntry(IdempotencyKey key) {
        BatchEntry e = key == null ? null : held.get(key);
        if (e == null) {
            throw new IllegalArgumentException("key " + key + " is not held by this batch");
        }
        return e;
    }

    IdempotencyConfig config() {
        return config;
    }

    private boolean renewHeld() {
        Duration lease = config.inFlightLease();
        boolean any = false;
        for (IdempotencyKey k : List.copyOf(held.keySet())) {
            if (lost.contains(k)) {
                continue;
            }
            if (store.renew(k, owner, lease)) {
                any = true;
            } else if (held.containsKey(k) && lost.add(k)) {
                config.listener().onLeaseLost(k);
            }
        }
        return any || held.isEmpty();
    }

    private void onLost() {
        for (IdempotencyKey k : held.keySet()) {
            if (lost.add(k)) {
                config.listener().onLeaseLost(k);
            }
        }
    }

    private void stopIfIdle() {
        if (renewal != null && held.isEmpty()) {
            renewal.stop();
        }
    }

    private void releaseQuietly(List<IdempotencyKey> keys, RuntimeException failure) {
        try {
            store.releaseAll(keys, owner);
        } catch (RuntimeException storeFailure) {
            failure.addSuppressed(storeFailure);
        }
    }
}
