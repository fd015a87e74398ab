package io.dupguard.lock;

import java.time.Duration;

/**
 * A held distributed lock. Close it in {@code finally} or try-with-resources.
 *
 * <p>The {@link #fencingToken()} lets the protected resource reject a stale holder (guarantee L5): a
 * holder that paused past its lease (GC, slow I/O) may still believe it holds the lock; if every
 * write carries the token and the resource refuses tokens lower than the highest it has seen (see
 * {@code io.dupguard.jdbc.Fence}), the stale write is rejected.
 *
 * <p>Thread-safe: a lease may be closed from a thread other than the one that acquired it (async
 * code; acquire with an explicit owner).
 */
public interface Lease extends AutoCloseable {

    /**
     * The lock name.
     *
     * @return the name the lock was acquired under; never null
     */
    String name();

    /**
     * Strictly increasing per lock name across all holders, processes and restarts: a later
     * holder always has a larger token than an earlier one. A reentrant acquisition returns the
     * outer acquisition's token.
     *
     * @return the fencing token of this acquisition, positive; pass it to the protected resource so
     *     that it can refuse writes from an earlier holder
     */
    long fencingToken();

    /**
     * Sets the remaining lease to {@code leaseTime} from now, if still held.
     *
     * @param leaseTime the new remaining lease, counted from now; not null, between {@link
     *     LockOptions#MIN_LEASE} and {@link LockOptions#MAX_DURATION}
     * @return false if the lock is no longer held by this lease (expired and possibly taken over)
     */
    boolean extend(Duration leaseTime);

    /**
     * Whether the store still records this lease as the holder. Asks the store, except once a
     * watchdog-renewed lease was reported lost ({@link LockOptions.Builder#onLeaseLost}): then
     * false without asking.
     *
     * @return true if the store still records this lease as the holder; false once it expired, was
     *     taken over or was released
     * @throws io.dupguard.StoreUnavailableException if the store cannot be asked
     */
    boolean isHeld();

    /**
     * Releases the lock if this lease still holds it; never deletes another holder's lock (guarantee L3).
     * Reentrant acquisitions release on the outermost close. Idempotent; does not throw for a lease
     * that was lost (a store failure is logged).
     */
    @Override
    void close();
}
