package io.dupguard.lock;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Watchdog;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * How to acquire a lock. Immutable; start from {@link #ofDefaults()} or {@link #custom()}. Every
 * builder method rejects a bad value at once, naming the field.
 */
public final class LockOptions {
    /** Lease of a watchdog-renewed lock; renewed every third of it while the holder lives. */
    public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);
    /** How long {@link LockProvider#acquire} waits by default. */
    public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(30);
    /** First pause between polls of a store that cannot notify waiters. */
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofMillis(5);
    /** Largest pause between polls (the pause doubles, with jitter, up to this). */
    public static final Duration DEFAULT_MAX_RETRY_INTERVAL = Duration.ofMillis(100);

    /** Longest lease or wait accepted: 100 years, which every store can represent. */
    public static final Duration MAX_DURATION = Checks.MAX_DURATION;
    /** Shortest fixed lease: stores count leases in milliseconds. */
    public static final Duration MIN_LEASE = Duration.ofMillis(1);
    /**
     * Shortest watchdog lease: renewed every third of it on a 20 ms tick, with room for retries
     * after a failed renewal.
     */
    public static final Duration MIN_WATCHDOG_LEASE = Watchdog.MIN_LEASE;

    private static final LockOptions DEFAULTS = new Builder().build();

    private final Duration leaseTime;
    private final Duration watchdogLease;
    private final Duration waitTime;
    private final Duration retryInterval;
    private final Duration maxRetryInterval;
    private final String owner;
    private final Consumer<Lease> onLeaseLost;

    private LockOptions(Builder b) {
        this.leaseTime = b.leaseTime;
        this.watchdogLease = b.watchdogLease;
        this.waitTime = b.waitTime;
        this.retryInterval = b.retryInterval;
        this.maxRetryInterval = b.maxRetryInterval;
        this.owner = b.owner;
        this.onLeaseLost = b.onLeaseLost;
    }

    /**
     * Watchdog lease, 30 s wait for {@code acquire}, thread ownership.
     *
     * @return the shared default options; immutable
     */
    public static LockOptions ofDefaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder, not thread-safe
     */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * A builder starting from {@code base}'s settings.
     *
     * @param base the options to copy
     * @return a new builder, not thread-safe
     */
    public static Builder from(LockOptions base) {
        Builder b = new Builder();
        b.leaseTime = base.leaseTime;
        b.watchdogLease = base.watchdogLease;
        b.waitTime = base.waitTime;
        b.retryInterval = base.retryInterval;
        b.maxRetryInterval = base.maxRetryInterval;
        b.owner = base.owner;
        b.onLeaseLost = base.onLeaseLost;
        return b;
    }

    /**
     * A fixed lease without renewal, if one was given; empty means watchdog renewal.
     *
     * @return the fixed lease, or empty when the lease is renewed by a watchdog
     */
    public Optional<Duration> leaseTime() {
        return Optional.ofNullable(leaseTime);
    }

    /**
     * The lease actually requested from the store.
     *
     * @return the fixed lease if one was given, otherwise the watchdog lease; never null
     */
    public Duration effectiveLease() {
        return leaseTime != null ? leaseTime : watchdogLease;
    }

    /**
     * Whether a watchdog renews the lease while the holder lives.
     *
     * @return true if the lease is renewed by a watchdog, false for a fixed lease
     */
    public boolean watchdog() {
        return leaseTime == null;
    }

    /**
     * How long {@link LockProvider#acquire} waits for the lock before {@link
     * LockUnavailableException}.
     *
     * @return the longest wait of {@code acquire}; zero or positive, never null
     */
    public Duration waitTime() {
        return waitTime;
    }

    /**
     * First pause between attempts while waiting where the backend cannot be notified; it grows
     * with jitter.
     *
     * @return the first pause between attempts; positive, never null
     */
    public Duration retryInterval() {
        return retryInterval;
    }

    /**
     * Longest pause between attempts while waiting.
     *
     * @return the longest pause between attempts; not shorter than {@link #retryInterval()}, never
     *     null
     */
    public Duration maxRetryInterval() {
        return maxRetryInterval;
    }

    /**
     * The explicit owner id, if any; empty means the current thread owns the lock.
     *
     * @return the owner id, or empty when the acquiring thread is the owner
     */
    public Optional<String> owner() {
        return Optional.ofNullable(owner);
    }

    /**
     * Called once if a watchdog-renewed lease is lost while held; a no-op by default.
     *
     * @return the lease-lost callback; never null
     */
    public Consumer<Lease> onLeaseLost() {
        return onLeaseLost;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private Duration leaseTime;
        private Duration watchdogLease = DEFAULT_WATCHDOG_LEASE;
        private Duration waitTime = DEFAULT_WAIT_TIME;
        private Duration retryInterval = DEFAULT_RETRY_INTERVAL;
        private Duration maxRetryInterval = DEFAULT_MAX_RETRY_INTERVAL;
        private String owner;
        private Consumer<Lease> onLeaseLost = lease -> {};

        private Builder() {}

        /**
         * A fixed lease without watchdog renewal: the lock frees itself after it (L2). Between
         * {@link #MIN_LEASE} and {@link #MAX_DURATION}.
         *
         * @param leaseTime the fixed lease; not null, between {@link #MIN_LEASE} and {@link
         *     #MAX_DURATION}
         * @return this builder
         * @throws IllegalArgumentException if {@code leaseTime} is out of range
         * @throws NullPointerException if {@code leaseTime} is null
         */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = Checks.between(leaseTime, MIN_LEASE, MAX_DURATION, "leaseTime");
            return this;
        }

        /**
         * Renew the lease while the holder lives instead of a fixed lease (the default).
         *
         * @return this builder
         */
        public Builder watchdog() {
            this.leaseTime = null;
            return this;
        }

        /**
         * Watchdog renewal with this lease: a crashed holder's lock frees within it, a live holder
         * renews every third of it (default {@link #DEFAULT_WATCHDOG_LEASE}). A failed renewal is
         * retried with backoff until the lease would run out; only then is the lease lost ({@link
         * Lease#isHeld()} false, {@link #onLeaseLost} called). Between {@link #MIN_WATCHDOG_LEASE}
         * and {@link #MAX_DURATION}.
         *
         * @param lease the watchdog lease; not null, between {@link #MIN_WATCHDOG_LEASE} and {@link
         *     #MAX_DURATION}
         * @return this builder
         * @throws IllegalArgumentException if {@code lease} is out of range
         */
        public Builder watchdog(Duration lease) {
            this.watchdogLease = Checks.between(lease, MIN_WATCHDOG_LEASE, MAX_DURATION, "watchdogLease");
            this.leaseTime = null;
            return this;
        }

        /**
         * How long {@link LockProvider#acquire} waits; zero makes it fail at once.
         *
         * @param waitTime the longest wait; not null, zero or positive
         * @return this builder
         * @throws IllegalArgumentException if {@code waitTime} is negative
         */
        public Builder waitTime(Duration waitTime) {
            this.waitTime = Checks.notNegative(waitTime, "waitTime");
            return this;
        }

        /**
         * First and largest pause between polls (L6); the pause grows with jitter.
         *
         * @param first the first pause; not null, positive
         * @param max the largest pause; not null, not shorter than {@code first}
         * @return this builder
         * @throws IllegalArgumentException if a pause is not positive or {@code max} is shorter
         *     than {@code first}
         */
        public Builder retryInterval(Duration first, Duration max) {
            Checks.positive(first, "retryInterval");
            Checks.positive(max, "maxRetryInterval");
            if (max.compareTo(first) < 0) {
                throw new IllegalArgumentException("maxRetryInterval must not be less than retryInterval");
            }
            this.retryInterval = first;
            this.maxRetryInterval = max;
            return this;
        }

        /**
         * Owner for reentrancy, instead of the current thread: acquisitions with the same owner id
         * nest, and the lease may be closed from any thread. 1–128 characters, no control characters.
         *
         * @param owner the owner id; 1–128 characters without control characters, not null
         * @return this builder
         * @throws io.dupguard.InvalidIdentifierException (an {@code IllegalArgumentException}) if
         *     {@code owner} is null, blank, longer than 128 characters or has control characters
         */
        public Builder owner(String owner) {
            this.owner = Checks.text(owner, 128, "owner");
            return this;
        }

        /**
         * Called once, on a renewal thread, when a watchdog-renewed lease is lost while held: the
         * store answered that another holder has the lock, or no renewal succeeded within the lease
         * (see {@link #watchdog(Duration)}). From then on {@link Lease#isHeld()} is false. The
         * callback must be fast and must not throw; stop the protected work, or rely on the fencing
         * token to reject its writes.
         *
         * @param callback the callback, given the lost lease; not null
         * @return this builder
         * @throws NullPointerException if {@code callback} is null
         */
        public Builder onLeaseLost(Consumer<Lease> callback) {
            this.onLeaseLost = Objects.requireNonNull(callback, "onLeaseLost");
            return this;
        }

        /**
         * Builds the options.
         *
         * @return immutable, thread-safe options
         */
        public LockOptions build() {
            return new LockOptions(this);
        }
    }
}
