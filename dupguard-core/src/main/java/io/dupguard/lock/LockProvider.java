package io.dupguard.lock;

import java.util.Optional;

/**
 * Mutual exclusion across threads, processes and machines (guarantees L1–L7).
 *
 * <pre>{@code
 * try (Lease lease = locks.acquire("account:" + accountId, LockOptions.ofDefaults())) {
 *     credit(accountId, amount, lease.fencingToken());
 * }
 *
 * Optional<Lease> lease = locks.tryAcquire("order:" + orderId, LockOptions.ofDefaults());
 * if (lease.isEmpty()) return "already processing";
 * }</pre>
 *
 * <p>Every lock has an expiry set atomically with acquisition (L2): {@link LockOptions#leaseTime()}
 * when given, otherwise a watchdog lease that is renewed while the holder lives. Release only
 * removes the caller's own lock (L3). Acquisition is reentrant for the same owner — the thread by
 * default, or {@link LockOptions.Builder#owner(String)} for async code (L4). Each acquisition
 * carries a fencing token (L5).
 *
 * <p>Implementations are thread-safe. Failing to reach the store throws {@link
 * io.dupguard.StoreUnavailableException}; it is never reported as "lock taken" or "lock free".
 */
public interface LockProvider {

    /**
     * Acquires the lock if it is free now, without waiting (the wait time is ignored); contention is
     * a normal result.
     *
     * @param name the lock name; not blank, at most 200 characters, no control characters
     * @param options lease, owner and callback settings; not null
     * @return the lease, or empty if another owner holds the lock
     * @throws io.dupguard.InvalidIdentifierException for a bad name
     */
    Optional<Lease> tryAcquire(String name, LockOptions options);

    /**
     * Acquires the lock, waiting up to {@link LockOptions#waitTime()}.
     *
     * @param name the lock name; not blank, at most 200 characters, no control characters
     * @param options lease, wait, owner and callback settings; not null
     * @return the lease, to be closed when the protected work ends; never null
     * @throws LockUnavailableException if still held by another owner when the wait ends
     * @throws io.dupguard.InvalidIdentifierException for a bad name
     */
    Lease acquire(String name, LockOptions options);

    /**
     * {@link #tryAcquire(String, LockOptions)} with {@link LockOptions#ofDefaults()}, no waiting.
     *
     * @param name the lock name; not blank, at most 200 characters, no control characters
     * @return the lease, or empty if another owner holds the lock
     * @throws io.dupguard.InvalidIdentifierException for a bad name
     */
    default Optional<Lease> tryAcquire(String name) {
        return tryAcquire(name, LockOptions.ofDefaults());
    }
}
