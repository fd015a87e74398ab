package io.dupguard.spring.annotation;

import io.dupguard.lock.Lease;

/** Hooks of {@link DistributedLock} calls, for metrics and the actuator endpoint. Must not throw. */
public interface LockObserver {
    /** No-op. */
    LockObserver NONE = new LockObserver() {};

    /** The lock was acquired after waiting {@code waitNanos}. */
    default void onAcquired(Lease lease, long waitNanos) {}

    /** The wait ended with the lock still held by another owner. */
    default void onUnavailable(String name, long waitNanos) {}

    /** The method finished and the lease is being released after {@code heldNanos}. */
    default void onReleased(Lease lease, long heldNanos) {}

    /** A watchdog-renewed lease was lost while the method ran. */
    default void onLeaseLost(Lease lease) {}
}
