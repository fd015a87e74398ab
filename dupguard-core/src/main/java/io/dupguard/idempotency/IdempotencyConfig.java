package io.dupguard.idempotency;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Watchdog;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of an {@link Idempotency} executor. Start from {@link #ofDefaults()} or
 * {@link #custom()}; every builder method rejects a bad value at once, naming the field.
 */
public final class IdempotencyConfig {
    /** How long a claim stays in progress without renewal before another caller may take it over. */
    public static final Duration DEFAULT_IN_FLIGHT_LEASE = Duration.ofSeconds(30);
    /** How long a finished result is kept for replay. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);
    /** Local cache of completed results: off. */
    public static final int DEFAULT_LOCAL_CACHE_SIZE = 0;
    /** How long a locally cached result may be served without asking the store. */
    public static final Duration DEFAULT_LOCAL_CACHE_TTL = Duration.ofMinutes(1);

    /**
     * Longest retention, lease or wait any setting accepts: 100 years, which every store can
     * represent. Use it for "keep forever"; {@code ChronoUnit.FOREVER} is refused.
     */
    public static final Duration MAX_DURATION = Checks.MAX_DURATION;

    /**
     * Shortest {@link Builder#inFlightLease} while {@link Builder#renewLease} is on: the lease is
     * renewed every third of it on a 20 ms tick, with room for retries after a failed renewal.
     */
    public static final Duration MIN_RENEWED_LEASE = Watchdog.MIN_LEASE;

    /** Shortest lease or retention a store can represent (Redis counts in milliseconds). */
    public static final Duration MIN_DURATION = Duration.ofMillis(1);

    private final Duration inFlightLease;
    private final Duration retention;
    private final InFlightPolicy inFlightPolicy;
    private final FailurePolicy failurePolicy;
    private final ResultCodec codec;
    private final boolean renewLease;
    private final boolean awaitCompletion;
    private final int localCacheSize;
    private final Duration localCacheTtl;
    private final IdempotencyListener listener;
    private final Clock clock;

    private IdempotencyConfig(Builder b) {
        this.inFlightLease = b.inFlightLease;
        this.retention = b.retention;
        this.inFlightPolicy = b.inFlightPolicy;
        this.failurePolicy = b.failurePolicy;
        this.codec = b.codec;
        this.renewLease = b.renewLease;
        this.awaitCompletion = b.awaitCompletion;
        this.localCacheSize = b.localCacheSize;
        this.localCacheTtl = b.localCacheTtl;
        this.listener = b.listener;
        this.clock = b.clock;
    }

    /**
     * Defaults: 30 s lease with renewal, 24 h retention, reject in-flight duplicates, release on
     * failure.
     *
     * @return the shared default configuration; immutable
     */
    public static IdempotencyConfig ofDefaults() {
        return custom().build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * A builder starting from {@code base}.
     *
     * @param base the configuration to copy; not null
     * @return a new builder
     */
    public static Builder from(IdempotencyConfig base) {
        Builder b = new Builder();
        b.inFlightLease = base.inFlightLease;
        b.retention = base.retention;
        b.inFlightPolicy = base.inFlightPolicy;
        b.failurePolicy = base.failurePolicy;
        b.codec = base.codec;
        b.renewLease = base.renewLease;
        b.awaitCompletion = base.awaitCompletion;
        b.localCacheSize = base.localCacheSize;
        b.localCacheTtl = base.localCacheTtl;
        b.listener = base.listener;
        b.clock = base.clock;
        return b;
    }

    /**
     * Lease of an in-progress claim; see {@link Builder#inFlightLease}.
     *
     * @return the in-flight lease; never null
     */
    public Duration inFlightLease() {
        return inFlightLease;
    }

    /**
     * How long a finished result is replayed; see {@link Builder#retention}.
     *
     * @return the retention; never null
     */
    public Duration retention() {
        return retention;
    }

    /**
     * What a duplicate of a call still in progress gets; see {@link Builder#inFlightPolicy}.
     *
     * @return the in-flight policy; never null
     */
    public InFlightPolicy inFlightPolicy() {
        return inFlightPolicy;
    }

    /**
     * Which failures are stored and replayed; see {@link Builder#failurePolicy}.
     *
     * @return the failure policy; never null
     */
    public FailurePolicy failurePolicy() {
        return failurePolicy;
    }

    /**
     * How results are stored; see {@link Builder#codec}.
     *
     * @return the codec; never null
     */
    public ResultCodec codec() {
        return codec;
    }

    /**
     * Whether the lease is renewed while the work runs; see {@link Builder#renewLease}.
     *
     * @return true if the lease is renewed
     */
    public boolean renewLease() {
        return renewLease;
    }

    /**
     * Whether {@link Idempotency#execute} waits for the store to record the result before it returns;
     * see {@link Builder#awaitCompletion}.
     *
     * @return true (the default) if a first call returns once its result is stored
     */
    public boolean awaitCompletion() {
        return awaitCompletion;
    }

    /**
     * Completed results kept in local memory (0 = off); see {@link Builder#localCacheSize}.
     *
     * @return the local cache size; 0 when off
     */
    public int localCacheSize() {
        return localCacheSize;
    }

    /**
     * Longest time a locally cached result is served; see {@link Builder#localCacheTtl}.
     *
     * @return the local cache TTL; never null
     */
    public Duration localCacheTtl() {
        return localCacheTtl;
    }

    /**
     * Who is told about claims, replays and failures; see {@link Builder#listener}.
     *
     * @return the listener; never null (a no-op by default)
     */
    public IdempotencyListener listener() {
        return listener;
    }

    /**
     * Clock for what the executor times itself; see {@link Builder#clock}.
     *
     * @return the clock; never null
     */
    public Clock clock() {
        return clock;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private Duration inFlightLease = DEFAULT_IN_FLIGHT_LEASE;
        private Duration retention = DEFAULT_RETENTION;
        private InFlightPolicy inFlightPolicy = InFlightPolicy.reject();
        private FailurePolicy failurePolicy = FailurePolicy.releaseOnFailure();
        private ResultCodec codec = ResultCodec.basic();
        private boolean renewLease = true;
        private boolean awaitCompletion = true;
        private int localCacheSize = DEFAULT_LOCAL_CACHE_SIZE;
        private Duration localCacheTtl = DEFAULT_LOCAL_CACHE_TTL;
        private IdempotencyListener listener = IdempotencyListener.NONE;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /**
         * Lease of an in-progress claim; after it, a crashed owner's claim may be taken over.
         * Between {@link #MIN_DURATION} and {@link #MAX_DURATION}; with {@link #renewLease} on (the
         * default) at least {@link #MIN_RENEWED_LEASE}, checked by {@link #build()}.
         *
         * @param lease the in-flight lease; not null, between {@link #MIN_DURATION} and {@link
         *     #MAX_DURATION}
         * @return this builder
         * @throws IllegalArgumentException if {@code lease} is out of range
         */
        public Builder inFlightLease(Duration lease) {
            this.inFlightLease = Checks.between(lease, MIN_DURATION, MAX_DURATION, "inFlightLease");
            return this;
        }

        /**
         * How long a finished result is replayed; after it the key may run again. Between {@link
         * #MIN_DURATION} and {@link #MAX_DURATION}.
         *
         * @param retention how long a result is replayed; not null, between {@link #MIN_DURATION}
         *     and {@link #MAX_DURATION}
         * @return this builder
         * @throws IllegalArgumentException if {@code retention} is out of range
         */
        public Builder retention(Duration retention) {
            this.retention = Checks.between(retention, MIN_DURATION, MAX_DURATION, "retention");
            return this;
        }

        /**
         * What a duplicate gets while the first call is still in progress: {@link InFlightPolicy#reject()}
         * (the default, {@link RequestInFlightException}) or wait and replay.
         *
         * @param policy the policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder inFlightPolicy(InFlightPolicy policy) {
            this.inFlightPolicy = Objects.requireNonNull(policy, "inFlightPolicy");
            return this;
        }

        /**
         * Which failures of the work are final and stored for replay; by default none ({@link
         * FailurePolicy#releaseOnFailure()}: the claim is released so a retry runs again).
         *
         * @param policy the policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder failurePolicy(FailurePolicy policy) {
            this.failurePolicy = Objects.requireNonNull(policy, "failurePolicy");
            return this;
        }

        /**
         * How results are turned into bytes for the store; {@link ResultCodec#basic()} by default.
         *
         * @param codec the codec, thread-safe
         * @return this builder
         * @throws NullPointerException if {@code codec} is null
         */
        public Builder codec(ResultCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /**
         * Renew the lease every third of its length while the work runs (default true). A failed
         * renewal is retried with backoff until the lease would run out; see {@code
         * docs/idempotency.md}, "Lease renewal".
         *
         * @param renew true to renew the lease while the work runs
         * @return this builder
         */
        public Builder renewLease(boolean renew) {
            this.renewLease = renew;
            return this;
        }

        /**
         * Whether a first call waits for the store to record its result before {@link
         * Idempotency#execute} returns (default true). With false, the completion is sent and {@code
         * execute} returns at once; the store's answer is taken by the <b>same thread's</b> next call
         * on the same executor, which sends its claim first, so on a store that pipelines (Redis) the
         * completion and the next claim share one round trip: a record listener's one command per
         * message. {@link Idempotency#awaitCompletions()} takes the answer without a next call.
         *
         * <p>What is given up: the caller of the first call is not told that its result could not be
         * stored. The next call is: a completion refused because another caller took the key over
         * throws {@link io.dupguard.LeaseLostException} from it, and a completion the store could not
         * answer is sent again while its lease holds, then throws {@link
         * io.dupguard.StoreUnavailableException}; in both cases before the next call's work runs, its
         * claim released. A completion that fails with no next call leaves the key in flight until its
         * lease ends (logged); its work then runs again on a retry, as after a crash between the work
         * and the completion. Failures stored for replay ({@link FailurePolicy}) and releases are
         * always awaited.
         *
         * @param await false to return before the store has recorded the result
         * @return this builder
         */
        public Builder awaitCompletion(boolean await) {
            this.awaitCompletion = await;
            return this;
        }

        /**
         * Keep up to {@code size} completed results in local memory so replays skip the store (0 =
         * off). A cached result is served for at most {@link #localCacheTtl}; use it only where a
         * record is never deleted by hand before its retention ends.
         *
         * @param size the most results cached, 0 (off) or positive
         * @return this builder
         * @throws IllegalArgumentException if {@code size} is negative
         */
        public Builder localCacheSize(int size) {
            this.localCacheSize = Checks.atLeast(size, 0, "localCacheSize");
            return this;
        }

        /**
         * Longest time a locally cached result is served (see {@link #localCacheSize}); {@link
         * #DEFAULT_LOCAL_CACHE_TTL} by default.
         *
         * @param ttl positive
         * @return this builder
         * @throws IllegalArgumentException if {@code ttl} is null, zero or negative, naming {@code localCacheTtl}
         */
        public Builder localCacheTtl(Duration ttl) {
            this.localCacheTtl = Checks.positive(ttl, "localCacheTtl");
            return this;
        }

        /**
         * Told about claims, replays, failures and lost leases (metrics, logs); {@link
         * IdempotencyListener#NONE} by default. Called on the caller's thread; it must not throw.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder listener(IdempotencyListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Clock for what the executor times itself (waits, local cache); stores use their own.
         *
         * @param clock the clock; not null
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @return an immutable, thread-safe configuration
         * @throws IllegalArgumentException if {@link #inFlightLease} is shorter than {@link
         *     #MIN_RENEWED_LEASE} while {@link #renewLease} is on
         */
        public IdempotencyConfig build() {
            if (renewLease && inFlightLease.compareTo(MIN_RENEWED_LEASE) < 0) {
                throw new IllegalArgumentException("inFlightLease must be at least " + MIN_RENEWED_LEASE
                        + " while renewLease is on (it is renewed every third of it, on a "
                        + Watchdog.TICK.toMillis() + " ms tick), was " + inFlightLease
                        + "; use a longer lease or renewLease(false)");
            }
            return new IdempotencyConfig(this);
        }
    }
}
