package io.dupguard.spring.annotation;

import io.dupguard.lock.Lease;

/** Hooks of {@link DistributedLock} calls, for metrics and the actuator endpoint. Must not throw. */
public interface LockObserver {
    /** No-op. */
    LockObserver NONE = new LockObserver() {};

    /**
     * The lock was acquired after waiting {@code waitNanos}.
     *
     * @param lease the new lease; never null
     * @param waitNanos the time spent waiting, in nanoseconds
     */
    default void onAcquired(Lease lease, long waitNanos) {}

    /**
     * The wait ended with the lock still held by another owner.
     *
     * @param name the lock name; never null
     * @param waitNanos the time spent waiting, in nanoseconds
     */
    default void onUnavailable(String name, long waitNanos) {}

    /**
     * The method finished and the lease is being released after {@code heldNanos}.
     *
     * @param lease the lease being released; never null
     * @param heldNanos the time the lock was held, in nanoseconds
     */
    default void onReleased(Lease lease, long heldNanos) {}

    /**
     * A watchdog-renewed lease was lost while the method ran.
     *
     * @param lease the lost lease; never null
     */
    default void onLeaseLost(Lease lease) {}
}
