package io.dupguard.shedlock;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@code LockProvider} whose locks are dupguard leases: {@code @SchedulerLock} jobs and
 * {@code LockingTaskExecutor} calls run under any dupguard {@link LockProvider} (JDBC, Redis,
 * Redlock, ZooKeeper) without a change to the jobs.
 *
 * <pre>{@code
 * @Bean
 * net.javacrumbs.shedlock.core.LockProvider shedLockProvider(io.dupguard.lock.LockProvider locks) {
 *     return DupguardShedLockProvider.builder(locks).renewal(true).build();
 * }
 * }</pre>
 *
 * <p>What ShedLock's settings become:
 *
 * <ul>
 *   <li><b>{@code lockAtMostFor}</b> is the lease. Without {@linkplain Builder#renewal(boolean)
 *       renewal} (the default, ShedLock's own behaviour) it is a fixed lease: a job that runs longer
 *       loses the lock when it runs out, and another node may start the job while the first still
 *       runs. With renewal, dupguard's watchdog renews the lease every third of {@code lockAtMostFor}
 *       while the job runs, so a long job is never started twice; a node that dies (or loses the
 *       store for longer than {@code lockAtMostFor}) lets the lock go within {@code lockAtMostFor}.
 *       A lease shorter than {@link LockOptions#MIN_WATCHDOG_LEASE} is raised to it with renewal.
 *   <li><b>{@code lockAtLeastFor}</b> is honoured on {@code unlock}: when the job ends earlier, the
 *       lease is shortened to what is left of {@code lockAtLeastFor} (counted on this JVM's
 *       monotonic clock from the acquisition) instead of released, and the lock frees itself then.
 *   <li><b>Time</b>: the store's clock decides when a lease ends (the database's {@code now()},
 *       Redis' key expiry, the ZooKeeper session), never each node's wall clock. ShedLock's own
 *       providers compare {@code lock_until} with the clock of the node that asks, so a node whose
 *       clock runs minutes ahead takes a lock another node still holds; here it cannot.
 *       {@code LockConfiguration}'s {@code createdAt} (ShedLock's {@code ClockProvider}) is not
 *       used.
 *   <li><b>Fencing</b>: every acquisition carries a fencing token, strictly increasing per lock;
 *       the job reads it with {@link ShedLockFence#current()} and passes it to the resource it
 *       writes, which then refuses a stale holder's writes.
 *   <li><b>{@code SimpleLock.extend}</b> (ShedLock's {@code LockExtender}) sets the lease to the new
 *       {@code lockAtMostFor} from now and counts the new {@code lockAtLeastFor} from now.
 *   <li>Locks are not reentrant (as ShedLock's): a second {@code lock} of a held name answers
 *       empty, also on the holding thread.
 * </ul>
 *
 * <p>The dupguard lock name is {@linkplain Builder#namePrefix(String) the prefix} (default {@value
 * #DEFAULT_PREFIX}) followed by ShedLock's name; at most 200 characters in all, no control
 * characters. A store that cannot be reached throws {@code io.dupguard.StoreUnavailableException}
 * from {@code lock} (ShedLock then skips the execution and logs it), never "lock taken".
 *
 * <p>Thread-safe.
 */
public final class DupguardShedLockProvider implements ExtensibleLockProvider {
    /** Prefix of the dupguard lock names unless {@link Builder#namePrefix(String)} says otherwise. */
    public static final String DEFAULT_PREFIX = "shedlock:";

    /** Ends the leases whose {@code lockAtLeastFor} outlived the job. */
    private static final ScheduledThreadPoolExecutor LATER = later();

    private final LockProvider locks;
    private final String prefix;
    private final boolean renewal;
    private final String ownerPrefix =
            "shedlock-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
    private final AtomicLong owners = new AtomicLong();

    private DupguardShedLockProvider(Builder b) {
        this.locks = b.locks;
        this.prefix = b.prefix;
        this.renewal = b.renewal;
    }

    /**
     * A provider on {@code locks} with the defaults: fixed leases ({@code lockAtMostFor}), names
     * prefixed {@value #DEFAULT_PREFIX}.
     *
     * @param locks the dupguard lock provider; not null
     * @return a thread-safe ShedLock provider
     */
    public static DupguardShedLockProvider create(LockProvider locks) {
        return builder(locks).build();
    }

    /**
     * A builder on {@code locks}.
     *
     * @param locks the dupguard lock provider; not null
     * @return a new builder, not thread-safe
     * @throws NullPointerException if {@code locks} is null
     */
    public static Builder builder(LockProvider locks) {
        return new Builder(locks);
    }

    /**
     * Takes the lock {@code lockConfiguration} names if it is free now (no waiting), with {@code
     * lockAtMostFor} as its lease, and records it for {@link ShedLockFence} on this thread.
     *
     * @param lockConfiguration ShedLock's name and durations; not null
     * @return the held lock, or empty if another execution holds it
     * @throws io.dupguard.InvalidIdentifierException if the prefixed name is longer than 200
     *     characters or has control characters
     * @throws io.dupguard.StoreUnavailableException if the store cannot be reached
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Duration atMost = lockConfiguration.getLockAtMostFor();
        LockOptions.Builder options = LockOptions.custom().owner(ownerPrefix + owners.incrementAndGet());
        if (renewal) {
            options.watchdog(max(atMost, LockOptions.MIN_WATCHDOG_LEASE));
        } else {
            options.leaseTime(max(atMost, LockOptions.MIN_LEASE));
        }
        long started = System.nanoTime();
        Optional<Lease> lease = locks.tryAcquire(prefix + lockConfiguration.getName(), options.build());
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        ShedLockFence.push(lease.get());
        return Optional.of(new Held(lease.get(), started, lockConfiguration.getLockAtLeastFor()));
    }

    /**
     * The fencing token of the lock named {@code lockName} that the current thread holds through
     * this provider.
     *
     * @param lockName ShedLock's lock name (without the prefix); not null
     * @return the token, or empty if this thread holds no such lock
     */
    public OptionalLong fencingToken(String lockName) {
        return ShedLockFence.current(Objects.requireNonNull(lockName, "lockName"), prefix);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static ScheduledThreadPoolExecutor later() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "dupguard-shedlock-release");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** One acquisition; {@code extend} hands the lease on to a new instance. */
    private final class Held implements SimpleLock {
        private final Lease lease;
        private final long startedNanos;
        private final Duration atLeast;
        private boolean done; // guarded by this

        Held(Lease lease, long startedNanos, Duration atLeast) {
            this.lease = lease;
            this.startedNanos = startedNanos;
            this.atLeast = atLeast;
        }

        private synchronized void finish() {
            if (done) {
                throw new IllegalStateException("lock '" + lease.name() + "' was already unlocked or extended");
            }
            done = true;
        }

        @Override
        public void unlock() {
            finish();
            ShedLockFence.remove(lease);
            long left = atLeast.toNanos() - (System.nanoTime() - startedNanos);
            if (left < LockOptions.MIN_LEASE.toNanos()) {
                lease.close();
                return;
            }
            // lockAtLeastFor: the store keeps the lock until it ends; with a fixed lease the
            // store frees it then even if this JVM stops. The local hold ends at the same time.
            if (!renewal) {
                lease.extend(Duration.ofNanos(left));
            }
            LATER.schedule(lease::close, left, TimeUnit.NANOSECONDS);
        }

        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            finish();
            long now = System.nanoTime();
            if (!lease.extend(max(lockAtMostFor, LockOptions.MIN_LEASE))) {
                ShedLockFence.remove(lease);
                lease.close();
                return Optional.empty();
            }
            return Optional.of(new Held(lease, now, lockAtLeastFor));
        }

        @Override
        public String toString() {
            return "ShedLock" + lease;
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final LockProvider locks;
        private String prefix = DEFAULT_PREFIX;
        private boolean renewal;

        private Builder(LockProvider locks) {
            this.locks = Objects.requireNonNull(locks, "locks");
        }

        /**
         * Renew the lease while the job runs (dupguard's watchdog, every third of {@code
         * lockAtMostFor}) instead of a fixed lease; off by default, as in ShedLock.
         *
         * @param renewal true to renew while the job runs
         * @return this builder
         */
        public Builder renewal(boolean renewal) {
            this.renewal = renewal;
            return this;
        }

        /**
         * Prefix of the dupguard lock names, so that ShedLock's names do not meet other dupguard
         * locks; may be empty to share names with them.
         *
         * @param prefix the prefix; not null, at most 100 characters
         * @return this builder
         * @throws IllegalArgumentException if {@code prefix} is longer than 100 characters
         * @throws NullPointerException if {@code prefix} is null
         */
        public Builder namePrefix(String prefix) {
            Objects.requireNonNull(prefix, "namePrefix");
            if (prefix.length() > 100) {
                throw new IllegalArgumentException("namePrefix must be at most 100 characters, was " + prefix.length());
            }
            this.prefix = prefix;
            return this;
        }

        /**
         * Builds the provider.
         *
         * @return a thread-safe ShedLock provider
         */
        public DupguardShedLockProvider build() {
            return new DupguardShedLockProvider(this);
        }
    }
}
