package io.dupguard.spring.annotation;

import io.dupguard.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The leases that {@link DistributedLock} methods hold on the current thread, innermost first.
 * Thread-confined: a lease is visible on the thread that runs the annotated method.
 */
public final class DistributedLocks {
    private static final ThreadLocal<Deque<Lease>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private DistributedLocks() {}

    /**
     * The lease of the innermost {@link DistributedLock} method running on this thread.
     *
     * @return the lease; never null
     * @throws IllegalStateException if no such method is running on this thread
     */
    public static Lease currentLease() {
        Lease lease = HELD.get().peek();
        if (lease == null) {
            throw new IllegalStateException("no @DistributedLock method is running on this thread");
        }
        return lease;
    }

    /**
     * The lease of the innermost running {@link DistributedLock} method holding {@code name}, if
     * any.
     *
     * @param name the lock name; not null
     * @return the lease, or empty if no running method on this thread holds {@code name}
     */
    public static Optional<Lease> currentLease(String name) {
        for (Lease lease : HELD.get()) {
            if (lease.name().equals(name)) {
                return Optional.of(lease);
            }
        }
        return Optional.empty();
    }

    static void push(Lease lease) {
        HELD.get().push(lease);
    }

    static void pop() {
        Deque<Lease> held = HELD.get();
        held.pop();
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
