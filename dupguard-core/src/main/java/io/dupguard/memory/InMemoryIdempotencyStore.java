package io.dupguard.memory;

import io.dupguard.LeaseLostException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * {@link IdempotencyStore} in this JVM's memory: for tests, single-instance services and as the
 * fastest reference. Every operation is one atomic {@link ConcurrentHashMap#compute} on the key.
 * Expiry follows the given {@link Clock}; expired records are dropped when touched and by {@link
 * #purgeExpired()}. A batch ({@link #claimAll}, {@link #completeAll}, {@link #releaseAll}) is
 * atomic as a whole: it holds a write lock that single-key operations share as readers, so no
 * single-key operation sees a batch half done. Thread-safe.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
    private final ConcurrentHashMap<IdempotencyKey, Entry> records = new ConcurrentHashMap<>();
    private final Clock clock;
    private final ReentrantReadWriteLock batchLock = new ReentrantReadWriteLock();

    private record Entry(RecordStatus status, Fingerprint fingerprint, String owner, byte[] payload, long expiresAt) {
        IdempotencyRecord toRecord(IdempotencyKey key) {
            return new IdempotencyRecord(key, status, fingerprint, owner, payload);
        }

        boolean ownedInProgress(String by) {
            return status == RecordStatus.IN_PROGRESS && owner.equals(by);
        }
    }

    /** An empty store on the system clock, for this JVM only. */
    public InMemoryIdempotencyStore() {
        this(Clock.systemUTC());
    }

    /**
     * A store whose expiry follows {@code clock} (tests inject a controllable one).
     *
     * @param clock the clock for expiry; not null
     */
    public InMemoryIdempotencyStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        Checks.positive(lease, "lease");
        return locked(batchLock.readLock(), () -> claimOne(key, fingerprint, owner, lease));
    }

    private Claim claimOne(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        long now = clock.millis();
        Claim[] result = new Claim[1];
        records.compute(key, (k, existing) -> {
            if (existing != null && existing.expiresAt > now) {
                result[0] = new Claim.Existing(existing.toRecord(k));
                return existing;
            }
            result[0] = existing == null ? Claim.FRESH : Claim.TAKEOVER;
            return new Entry(RecordStatus.IN_PROGRESS, fingerprint, owner, null, plus(now, lease));
        });
        return result[0];
    }

    @Override
    public void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        if (status == RecordStatus.IN_PROGRESS) {
            throw new IllegalArgumentException("complete needs COMPLETED or FAILED, was " + status);
        }
        Checks.positive(retention, "retention");
        boolean done = locked(batchLock.readLock(), () -> completeOne(key, owner, status, payload, retention));
        if (!done) {
            throw new LeaseLostException(key.toString(), "claim on " + key + " is no longer held by this caller");
        }
    }

    private boolean completeOne(
            IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        long now = clock.millis();
        boolean[] done = new boolean[1];
        records.computeIfPresent(key, (k, e) -> {
            if (!e.ownedInProgress(owner)) {
                return e;
            }
            done[0] = true;
            return new Entry(status, e.fingerprint, null, payload, plus(now, retention));
        });
        return done[0];
    }

    @Override
    public void release(IdempotencyKey key, String owner) {
        locked(
                batchLock.readLock(),
                () -> records.computeIfPresent(key, (k, e) -> e.ownedInProgress(owner) ? null : e));
    }

    @Override
    public List<Claim> claimAll(List<BatchEntry> entries, String owner, Duration lease) {
        Checks.positive(lease, "lease");
        return locked(batchLock.writeLock(), () -> {
            List<Claim> claims = new ArrayList<>(entries.size());
            for (BatchEntry e : entries) {
                claims.add(claimOne(e.key(), e.fingerprint(), owner, lease));
            }
            return claims;
        });
    }

    @Override
    public Set<IdempotencyKey> completeAll(List<BatchCompletion> completions, String owner, Duration retention) {
        Checks.positive(retention, "retention");
        return locked(batchLock.writeLock(), () -> {
            Set<IdempotencyKey> lost = new LinkedHashSet<>();
            for (BatchCompletion c : completions) {
                if (!completeOne(c.key(), owner, c.status(), c.payload(), retention)) {
                    lost.add(c.key());
                }
            }
            return lost;
        });
    }

    @Override
    public void releaseAll(List<IdempotencyKey> keys, String owner) {
        locked(batchLock.writeLock(), () -> {
            keys.forEach(k -> records.computeIfPresent(k, (key, e) -> e.ownedInProgress(owner) ? null : e));
            return null;
        });
    }

    private static <R> R locked(Lock lock, Supplier<R> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean renew(IdempotencyKey key, String owner, Duration lease) {
        Checks.positive(lease, "lease");
        return locked(batchLock.readLock(), () -> renewOne(key, owner, lease));
    }

    private boolean renewOne(IdempotencyKey key, String owner, Duration lease) {
        long now = clock.millis();
        boolean[] done = new boolean[1];
        records.computeIfPresent(key, (k, e) -> {
            if (!e.ownedInProgress(owner) || e.expiresAt <= now) {
                return e;
            }
            done[0] = true;
            return new Entry(e.status, e.fingerprint, e.owner, null, plus(now, lease));
        });
        return done[0];
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Entry e = records.get(key);
        if (e == null || e.expiresAt <= clock.millis()) {
            return Optional.empty();
        }
        return Optional.of(e.toRecord(key));
    }

    /**
     * Drops expired records; returns how many.
     *
     * @return the number of records dropped
     */
    public int purgeExpired() {
        long now = clock.millis();
        int[] removed = new int[1];
        records.forEach((k, e) -> {
            if (e.expiresAt <= now && records.remove(k, e)) {
                removed[0]++;
            }
        });
        return removed[0];
    }

    /**
     * Number of records held, expired or not.
     *
     * @return the number of records
     */
    public int size() {
        return records.size();
    }

    private static long plus(long now, Duration d) {
        long millis = Checks.millis(d);
        return millis > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + millis;
    }
}
