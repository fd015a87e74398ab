package io.dupguard.integration;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@code LockRegistry} whose locks are dupguard leases, on any dupguard {@link
 * LockProvider} (JDBC, Redis, Redlock, ZooKeeper): a drop-in for {@code JdbcLockRegistry} or {@code
 * RedisLockRegistry} under {@code LockRegistryLeaderInitiator}, aggregators and every other user of
 * a {@code LockRegistry}.
 *
 * <pre>{@code
 * @Bean
 * LockRegistry<?> lockRegistry(io.dupguard.lock.LockProvider locks) {
 *     return DupguardLockRegistry.create(locks);
 * }
 * }</pre>
 *
 * <p>The rules of Spring Integration's registries hold: {@link #obtain(Object)} takes a {@code
 * String} key and returns the same lock for the same key while it is in use; a lock belongs to the
 * thread that locked it and is reentrant for it (a local {@link ReentrantLock} per key, so threads
 * of one JVM queue locally and only the first asks the store); {@code unlock} by another thread
 * throws {@link IllegalMonitorStateException}; {@code newCondition} is not supported. Unlike {@code
 * JdbcLockRegistry} and {@code RedisLockRegistry}:
 *
 * <ul>
 *   <li>The lease is renewed while held (dupguard's watchdog, every third of the {@linkplain
 *       Builder#ttl(Duration) ttl}), so a holder that runs longer than the ttl keeps its lock; a
 *       holder that dies, or cannot reach the store for a whole ttl, loses it within the ttl.
 *       {@link Builder#renewal(boolean) renewal(false)} makes it a fixed lease, as theirs.
 *   <li>The store's clock ends leases, never the clock of a JVM.
 *   <li>Each holding has a {@linkplain DupguardLock#fencingToken() fencing token}, strictly
 *       increasing per key, to pass to the resource the holder writes.
 *   <li>A reentrant {@code lock}/{@code tryLock} of a held lock (as {@code
 *       LockRegistryLeaderInitiator} does every heartbeat) renews the lease in the store and checks
 *       that it is still ours; if it was lost, a new lease is taken (a new, larger fencing token) or
 *       the attempt fails.
 *   <li>{@code unlock} of a lease that was lost (expired, taken over) releases locally and throws
 *       {@link ConcurrentModificationException}, as theirs do.
 *   <li>A store that cannot be reached throws {@code io.dupguard.StoreUnavailableException} from
 *       {@code lock}, {@code tryLock} and {@code renewLock} (the local lock is not kept).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class DupguardLockRegistry
        implements ExpirableLockRegistry<DupguardLockRegistry.DupguardLock>,
                RenewableLockRegistry<DupguardLockRegistry.DupguardLock> {
    /** The ttl unless {@link Builder#ttl(Duration)} says otherwise: dupguard's watchdog lease. */
    public static final Duration DEFAULT_TTL = LockOptions.DEFAULT_WATCHDOG_LEASE;
    /** Prefix of the dupguard lock names unless {@link Builder#namePrefix(String)} says otherwise. */
    public static final String DEFAULT_PREFIX = "si:";

    private static final Duration FOREVER = Duration.ofDays(365);

    private final LockProvider locks;
    private final String prefix;
    private final Duration ttl;
    private final boolean renewal;
    private final ConcurrentMap<String, DupguardLock> registry = new ConcurrentHashMap<>();
    private final String ownerPrefix =
            "si-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
    private final AtomicLong owners = new AtomicLong();

    private DupguardLockRegistry(Builder b) {
        this.locks = b.locks;
        this.prefix = b.prefix;
        this.ttl = b.ttl;
        this.renewal = b.renewal;
    }

    /**
     * A registry on {@code locks} with the defaults: renewed leases of {@link #DEFAULT_TTL}, names
     * prefixed {@value #DEFAULT_PREFIX}.
     *
     * @param locks the dupguard lock provider; not null
     * @return a thread-safe registry
     */
    public static DupguardLockRegistry create(LockProvider locks) {
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
     * The lock of {@code lockKey}: the same instance for the same key until {@link
     * #expireUnusedOlderThan(long)} drops it unused.
     *
     * @param lockKey the key; a {@code String}, with the prefix at most 200 characters, no control
     *     characters
     * @return the lock; never null
     * @throws IllegalArgumentException if {@code lockKey} is not a {@code String}
     */
    @Override
    public DupguardLock obtain(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        DupguardLock lock = registry.computeIfAbsent(key, DupguardLock::new);
        lock.lastUsed = System.currentTimeMillis();
        return lock;
    }

    /**
     * Drops the locks that no thread holds and that were last obtained more than {@code age}
     * milliseconds ago; a later {@link #obtain(Object)} creates them again.
     *
     * @param age milliseconds since the lock was last obtained
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = System.currentTimeMillis() - age;
        registry.values().removeIf(lock -> lock.lastUsed < before && !lock.local.isLocked());
    }

    /**
     * Renews the lease of {@code lockKey}, which the current thread holds, to the registry's ttl.
     *
     * @param lockKey the key; not null
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the lease was lost (expired or taken over)
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, ttl);
    }

    /**
     * Renews the lease of {@code lockKey}, which the current thread holds, to {@code ttl} from now.
     *
     * @param lockKey the key; not null
     * @param ttl the new remaining lease; not null, between 1 ms and 100 years
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the lease was lost (expired or taken over)
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        DupguardLock lock = registry.get(String.valueOf(lockKey));
        if (lock == null || !lock.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold lock " + lockKey);
        }
        if (!lock.lease.extend(ttl)) {
            throw new IllegalStateException("could not renew lock " + lockKey + ": its lease was lost");
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * A lock of the registry: a local {@link ReentrantLock} in front of a dupguard lease. Thread-safe;
     * held by one thread at a time, reentrantly.
     */
    public final class DupguardLock implements DistributedLock {
        private final String key;
        private final ReentrantLock local = new ReentrantLock();
        private volatile long lastUsed = System.currentTimeMillis();
        // Written and read by the thread holding `local`.
        private volatile Lease lease;
        private long leaseNanos;
        private long acquiredNanos;
        private volatile boolean lost;

        private DupguardLock(String key) {
            this.key = key;
        }

        /**
         * The fencing token of the current thread's holding: strictly greater than every earlier
         * holder's of this key, across all JVMs.
         *
         * @return the fencing token; positive
         * @throws IllegalMonitorStateException if the current thread does not hold this lock
         */
        public long fencingToken() {
            if (!local.isHeldByCurrentThread()) {
                throw new IllegalMonitorStateException("the current thread does not hold lock " + key);
            }
            return lease.fencingToken();
        }

        @Override
        public void lock() {
            lock(ttl);
        }

        @Override
        public void lock(Duration ttl) {
            local.lock();
            boolean interrupted = false;
            try {
                // Lock.lock does not give up on an interrupt: keep waiting, restore the flag after.
                while (!acquire(ttl, FOREVER)) {
                    interrupted |= Thread.interrupted();
                }
            } catch (RuntimeException | Error e) {
                local.unlock();
                throw e;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            local.lockInterruptibly();
            try {
                while (!acquire(ttl, FOREVER)) {
                    if (Thread.interrupted()) {
                        throw new InterruptedException("interrupted while waiting for lock " + key);
                    }
                }
            } catch (InterruptedException | RuntimeException | Error e) {
                local.unlock();
                throw e;
            }
        }

        @Override
        public boolean tryLock() {
            try {
                return tryLock(Duration.ZERO, ttl);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return tryLock(Duration.ofNanos(unit.toNanos(time)), ttl);
        }

        @Override
        public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
            long deadline = System.nanoTime() + waitTime.toNanos();
            if (!local.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
            boolean acquired = false;
            try {
                acquired = acquire(ttl, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                if (!acquired && Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock " + key);
                }
                return acquired;
            } finally {
                if (!acquired) {
                    local.unlock();
                }
            }
        }

        /**
         * With {@code local} held: makes sure this thread holds a live lease, taking one within
         * {@code wait}. A reentrant call renews the lease in the store, which also checks it.
         */
        private boolean acquire(Duration ttl, Duration wait) {
            if (lease != null) {
                if (!lost && (renewal || !expired()) && lease.extend(leaseTime(ttl))) {
                    leaseNanos = leaseTime(ttl).toNanos();
                    acquiredNanos = System.nanoTime();
                    return true;
                }
                // Lost: drop it and take a new lease below (a larger fencing token).
                Lease old = lease;
                lease = null;
                lost = true;
                old.close();
            }
            LockOptions.Builder b = LockOptions.custom()
                    .owner(ownerPrefix + owners.incrementAndGet())
                    .waitTime(wait);
            LockOptions options =
                    (renewal ? b.watchdog(leaseTime(ttl)).onLeaseLost(this::leaseLost) : b.leaseTime(ttl)).build();
            Optional<Lease> taken;
            if (wait.isZero()) {
                taken = locks.tryAcquire(prefix + key, options);
            } else {
                try {
                    taken = Optional.of(locks.acquire(prefix + key, options));
                } catch (LockUnavailableException e) {
                    taken = Optional.empty();
                }
            }
            if (taken.isEmpty()) {
                return false;
            }
            lease = taken.get();
            lost = false;
            leaseNanos = leaseTime(ttl).toNanos();
            acquiredNanos = System.nanoTime();
            return true;
        }

        /** The watchdog's report, on its thread; about the current lease only. */
        private void leaseLost(Lease lost) {
            if (lost == lease) {
                this.lost = true;
            }
        }

        private Duration leaseTime(Duration ttl) {
            return renewal ? max(ttl, LockOptions.MIN_WATCHDOG_LEASE) : ttl;
        }

        private boolean expired() {
            return System.nanoTime() - acquiredNanos >= leaseNanos;
        }

        /**
         * Releases one hold of the current thread; the last one releases the lease in the store.
         *
         * @throws IllegalMonitorStateException if the current thread does not hold this lock
         * @throws ConcurrentModificationException if the lease was lost before the release (the
         *     lock is released locally all the same); a fixed lease ({@code renewal=false}) asks the
         *     store, whose clock ends it
         * @throws io.dupguard.StoreUnavailableException if a fixed lease's store cannot be asked
         *     whether it still holds (the lock is released locally and its release attempted)
         */
        @Override
        public void unlock() {
            if (!local.isHeldByCurrentThread()) {
                throw new IllegalMonitorStateException("the current thread does not hold lock " + key);
            }
            if (local.getHoldCount() > 1) {
                local.unlock();
                return;
            }
            Lease held = lease;
            boolean wasLost = lost || (!renewal && expired());
            lease = null;
            try {
                if (held != null && !wasLost && !renewal) {
                    // A fixed lease ends by the store's clock, which may reach its end a little
                    // before this node's count does: ask the store before releasing.
                    try {
                        wasLost = !held.isHeld();
                    } finally {
                        held.close();
                    }
                } else if (held != null) {
                    held.close();
                }
            } finally {
                local.unlock();
            }
            if (wasLost) {
                throw new ConcurrentModificationException("the lease of lock " + key
                        + " was lost before unlock; the data it protects may have been changed by another holder");
            }
        }

        /**
         * Not supported, as in Spring Integration's distributed registries.
         *
         * @return never
         * @throws UnsupportedOperationException always
         */
        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("conditions are not supported by lock " + key);
        }

        @Override
        public String toString() {
            return "DupguardLock[" + key + (local.isLocked() ? ", locked" : "") + "]";
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final LockProvider locks;
        private String prefix = DEFAULT_PREFIX;
        private Duration ttl = DEFAULT_TTL;
        private boolean renewal = true;

        private Builder(LockProvider locks) {
            this.locks = Objects.requireNonNull(locks, "locks");
        }

        /**
         * The lease of a lock: renewed every third of it while held, or, with {@code
         * renewal(false)}, a fixed lease. Default {@link #DEFAULT_TTL}.
         *
         * @param ttl the lease; not null, positive; raised to {@link LockOptions#MIN_WATCHDOG_LEASE}
         *     with renewal
         * @return this builder
         * @throws IllegalArgumentException if {@code ttl} is not positive
         */
        public Builder ttl(Duration ttl) {
            Objects.requireNonNull(ttl, "ttl");
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl must be positive, was " + ttl);
            }
            this.ttl = ttl;
            return this;
        }

        /**
         * Whether the lease is renewed while held (the default); false makes the ttl a fixed lease,
         * as in {@code JdbcLockRegistry} without a renewal scheduler.
         *
         * @param renewal true to renew while held
         * @return this builder
         */
        public Builder renewal(boolean renewal) {
            this.renewal = renewal;
            return this;
        }

        /**
         * Prefix of the dupguard lock names; may be empty to share names with other dupguard locks.
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
         * Builds the registry.
         *
         * @return a thread-safe registry
         */
        public DupguardLockRegistry build() {
            return new DupguardLockRegistry(this);
        }
    }
}
