package io.dupguard.spring;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.lock.Lease;
import io.dupguard.spring.annotation.LockObserver;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this instance is doing right now, for the {@code dupguard} actuator endpoint: the locks its
 * {@code @DistributedLock} methods hold and the idempotency keys its {@code @Idempotent} methods and
 * HTTP filter are processing (running the work, or waiting for the first call). Thread-safe; entries
 * live only while the call runs.
 */
public class DupguardActivity implements LockObserver {
    /**
     * A lock held by this instance.
     *
     * @param name the lock name
     * @param fencingToken the lease's fencing token
     * @param heldSince when the lock was acquired
     * @param thread the name of the thread that acquired it
     */
    public record HeldLock(String name, long fencingToken, Instant heldSince, String thread) {}

    /**
     * A key this instance is processing.
     *
     * @param scope the key's scope
     * @param key the key
     * @param since when processing began
     * @param source what processes it, e.g. {@code @Idempotent charge} or {@code http POST
     *     /payments}
     */
    public record InFlightKey(String scope, String key, Instant since, String source) {}

    private final Clock clock;
    private final Map<Lease, HeldLock> locks = new ConcurrentHashMap<>();
    private final Map<Long, InFlightKey> keys = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** Activity timed by the system clock in UTC. */
    public DupguardActivity() {
        this(Clock.systemUTC());
    }

    /**
     * Activity timed by {@code clock} (tests inject a fixed one).
     *
     * @param clock the clock of the recorded start times; not null
     */
    public DupguardActivity(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void onAcquired(Lease lease, long waitNanos) {
        locks.put(
                lease,
                new HeldLock(
                        lease.name(),
                        lease.fencingToken(),
                        clock.instant(),
                        Thread.currentThread().getName()));
    }

    @Override
    public void onReleased(Lease lease, long heldNanos) {
        locks.remove(lease);
    }

    /**
     * Records that {@code key} is being processed; returns the id to pass to {@link #end}.
     *
     * @param key the key; not null
     * @param source what processes it, shown by the endpoint; not null
     * @return the id of this entry, for {@link #end}
     */
    public long begin(IdempotencyKey key, String source) {
        long id = ids.incrementAndGet();
        keys.put(id, new InFlightKey(key.scope(), key.key(), clock.instant(), source));
        return id;
    }

    /**
     * Ends what {@link #begin} recorded.
     *
     * @param id the id {@link #begin} returned; an unknown id is ignored
     */
    public void end(long id) {
        keys.remove(id);
    }

    /**
     * The locks held now, oldest first.
     *
     * @return a snapshot of the held locks; never null
     */
    public List<HeldLock> heldLocks() {
        List<HeldLock> out = new ArrayList<>(locks.values());
        out.sort(Comparator.comparing(HeldLock::heldSince));
        return out;
    }

    /**
     * The keys being processed now, oldest first.
     *
     * @return a snapshot of the keys in progress; never null
     */
    public List<InFlightKey> inFlightKeys() {
        List<InFlightKey> out = new ArrayList<>(keys.values());
        out.sort(Comparator.comparing(InFlightKey::since));
        return out;
    }
}
