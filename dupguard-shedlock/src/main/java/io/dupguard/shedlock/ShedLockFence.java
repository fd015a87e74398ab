package io.dupguard.shedlock;

import io.dupguard.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.OptionalLong;

/**
 * The fencing token of the ShedLock lock the current thread runs under, for a job to pass to the
 * resource it writes ({@code io.dupguard.jdbc.Fence}), as ShedLock's {@code LockAssert} tells a job
 * that it runs under a lock.
 *
 * <p>{@link DupguardShedLockProvider#lock} records the lease on the thread that takes the lock
 * (ShedLock runs the job on that thread), and {@code unlock} removes it. Nested locks of different
 * names are kept innermost first. Thread-safe: each thread sees only its own locks.
 */
public final class ShedLockFence {
    private static final ThreadLocal<Deque<Lease>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private ShedLockFence() {}

    /**
     * The fencing token of the innermost lock this thread took through a {@link
     * DupguardShedLockProvider} and has not unlocked.
     *
     * @return the token, or empty when this thread runs under no such lock
     */
    public static OptionalLong current() {
        Lease lease = HELD.get().peekFirst();
        return lease == null ? OptionalLong.empty() : OptionalLong.of(lease.fencingToken());
    }

    /**
     * The fencing token of the lock named {@code lockName} (ShedLock's name, without the provider's
     * prefix) that this thread holds.
     *
     * @param lockName the ShedLock lock name; not null
     * @param prefix the provider's name prefix; not null
     * @return the token, or empty when this thread holds no such lock
     */
    static OptionalLong current(String lockName, String prefix) {
        for (Lease lease : HELD.get()) {
            if (lease.name().equals(prefix + lockName)) {
                return OptionalLong.of(lease.fencingToken());
            }
        }
        return OptionalLong.empty();
    }

    /**
     * The token of the innermost lock, or an exception for a job that runs without one.
     *
     * @return the fencing token of the innermost lock this thread holds; positive
     * @throws IllegalStateException if this thread runs under no lock of a {@link
     *     DupguardShedLockProvider}
     */
    public static long require() {
        return current()
                .orElseThrow(() ->
                        new IllegalStateException("no ShedLock lock of a DupguardShedLockProvider is held by thread "
                                + Thread.currentThread().getName()));
    }

    static void push(Lease lease) {
        HELD.get().addFirst(lease);
    }

    static void remove(Lease lease) {
        Deque<Lease> held = HELD.get();
        for (Iterator<Lease> it = held.iterator(); it.hasNext(); ) {
            if (it.next() == lease) {
                it.remove();
                break;
            }
        }
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
