package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Behaviour every {@link LockProvider} must show against its real server (guarantees L1–L5). "Machines"
 * are provider instances on separate connections. Waits use latches and Awaitility.
 */
public abstract class AbstractLockProviderContractTest {
    /** The lease of the expiry cases: short, so that the store's own expiry comes soon. */
    protected static final Duration SHORT = Duration.ofMillis(400);

    private static final int THREADS = 16;

    private String prefix;
    private ExecutorService pool;

    /**
     * Machine 0; further machines come from {@link #machine(int)}.
     *
     * @return the provider under test, the same instance on every call within a test
     */
    protected abstract LockProvider provider();

    /**
     * Provider {@code i} (1 or 2) on its own connection, standing in for another machine.
     *
     * @param i 1 or 2
     * @return a provider on the same server as {@link #provider()}, the same instance per {@code i}
     */
    protected abstract LockProvider machine(int i);

    /**
     * A provider on its own connections whose server can be made unreachable for a while (a
     * refused connection, a paused server with a short client timeout), and another machine's
     * provider on the same server. Every backend provides one.
     *
     * @return the providers under test and the outage that cuts the first off
     */
    protected abstract StoreOutage.Fixture<LockProvider> outageFixture();

    /**
     * Acquisitions per thread in the mutual-exclusion test (16 threads).
     *
     * @return 150 by default; a slow server may lower it
     */
    protected int acquisitionsPerThread() {
        return 150;
    }

    @BeforeEach
    void setUpLocks() {
        prefix = "lt-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void tearDownLocks() {
        pool.shutdownNow();
    }

    /**
     * A lock name of this test: {@code n} behind a random prefix per test, so that tests and earlier
     * runs on a shared server never see each other's locks.
     *
     * @param n the name within the test
     * @return the lock name to use
     */
    protected String name(String n) {
        return prefix + n;
    }

    private static LockOptions fixed(Duration lease) {
        return LockOptions.custom().leaseTime(lease).build();
    }

    private static LockOptions waiting(Duration wait) {
        return LockOptions.custom().waitTime(wait).build();
    }

    /**
     * Sixteen threads on three machines never overlap.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void sixteenThreadsOnThreeMachinesNeverOverlap() throws Exception {
        LockProvider[] machines = {provider(), machine(1), machine(2)};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong lastFence = new AtomicLong();
        AtomicInteger nonIncreasing = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        int perThread = acquisitionsPerThread();
        for (int t = 0; t < THREADS; t++) {
            LockProvider locks = machines[t % 3];
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    try (Lease lease = locks.acquire(name("hot"), waiting(Duration.ofSeconds(60)))) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        if (lease.fencingToken() <= lastFence.get()) {
                            nonIncreasing.incrementAndGet();
                        }
                        lastFence.set(lease.fencingToken());
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(300, TimeUnit.SECONDS);
        }
        assertThat(overlaps).hasValue(0);
        assertThat(nonIncreasing).hasValue(0);
        assertThat(lastFence.get()).isGreaterThanOrEqualTo((long) THREADS * perThread);
    }

    /** Second owner gets nothing while the lock is held. */
    @Test
    public void secondOwnerGetsNothingWhileTheLockIsHeld() {
        try (Lease held = provider().tryAcquire(name("order-1")).orElseThrow()) {
            assertThat(machine(1).tryAcquire(name("order-1"))).isEmpty();
            assertThat(held.isHeld()).isTrue();
        }
        try (Lease next = machine(1).tryAcquire(name("order-1")).orElseThrow()) {
            assertThat(next.isHeld()).isTrue();
        }
    }

    /** Crashed holder's lock frees at expiry. */
    @Test
    public void crashedHoldersLockFreesAtExpiry() {
        Lease abandoned = provider().tryAcquire(name("crash"), fixed(SHORT)).orElseThrow();

        try (Lease next = machine(1).acquire(name("crash"), waiting(Duration.ofSeconds(20)))) {
            assertThat(next.fencingToken()).isGreaterThan(abandoned.fencingToken());
            assertThat(abandoned.isHeld()).isFalse();
        }
    }

    /**
     * A same-JVM waiter takes over a lease that expired without close.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void sameJvmWaiterTakesOverALeaseThatExpiredWithoutClose() throws Exception {
        LockProvider locks = provider();
        Lease abandoned = pool.submit(
                        () -> locks.tryAcquire(name("stuck"), fixed(SHORT)).orElseThrow())
                .get(10, TimeUnit.SECONDS);

        Lease next = pool.submit(() -> locks.acquire(name("stuck"), waiting(Duration.ofSeconds(20))))
                .get(30, TimeUnit.SECONDS);
        abandoned.close(); // the stuck thread wakes up and closes: must not free the new holder's lock

        assertThat(next.fencingToken()).isGreaterThan(abandoned.fencingToken());
        assertThat(pool.submit(() -> locks.tryAcquire(name("stuck"))).get(10, TimeUnit.SECONDS))
                .isEmpty();
        assertThat(machine(1).tryAcquire(name("stuck"))).isEmpty();
        pool.submit(next::close).get(10, TimeUnit.SECONDS);
        assertThat(machine(1).tryAcquire(name("stuck"))).hasValueSatisfying(Lease::close);
    }

    /** Close after expiry does not release the new holder. */
    @Test
    public void closeAfterExpiryDoesNotReleaseTheNewHolder() {
        Lease stale = provider().tryAcquire(name("expired"), fixed(SHORT)).orElseThrow();
        try (Lease current = machine(1).acquire(name("expired"), waiting(Duration.ofSeconds(20)))) {
            stale.close();

            assertThat(current.isHeld()).isTrue();
            assertThat(machine(2).tryAcquire(name("expired"))).isEmpty();
            assertThat(stale.extend(Duration.ofSeconds(10))).isFalse();
        }
    }

    /** Same thread reenters with the same fence. */
    @Test
    public void sameThreadReentersWithTheSameFence() {
        LockProvider locks = provider();
        try (Lease outer = locks.tryAcquire(name("re")).orElseThrow()) {
            try (Lease inner = locks.tryAcquire(name("re")).orElseThrow()) {
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            }
            assertThat(outer.isHeld()).isTrue();
            assertThat(machine(1).tryAcquire(name("re"))).isEmpty();
        }
        assertThat(machine(1).tryAcquire(name("re"))).hasValueSatisfying(Lease::close);
    }

    /**
     * Explicit owner reenters from another thread and other threads wait.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void explicitOwnerReentersFromAnotherThreadAndOtherThreadsWait() throws Exception {
        LockProvider locks = provider();
        LockOptions job =
                LockOptions.custom().owner("job-42").waitTime(Duration.ZERO).build();
        Lease outer = locks.acquire(name("async"), job);

        Lease inner = pool.submit(() -> locks.acquire(name("async"), job)).get(10, TimeUnit.SECONDS);
        Optional<Lease> stranger =
                pool.submit(() -> locks.tryAcquire(name("async"))).get(10, TimeUnit.SECONDS);

        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(stranger).isEmpty();
        pool.submit(inner::close).get(10, TimeUnit.SECONDS);
        assertThat(outer.isHeld()).isTrue();
        pool.submit(outer::close).get(10, TimeUnit.SECONDS);
        assertThat(machine(1).tryAcquire(name("async"))).hasValueSatisfying(Lease::close);
    }

    /** Fencing tokens strictly increase across holders. */
    @Test
    public void fencingTokensStrictlyIncreaseAcrossHolders() {
        LockProvider[] machines = {provider(), machine(1), machine(2)};
        long previous = 0;
        for (int i = 0; i < 9; i++) {
            try (Lease lease = machines[i % 3].tryAcquire(name("fence")).orElseThrow()) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
    }

    /** Paused holder's fenced write is rejected. */
    @Test
    public void pausedHoldersFencedWriteIsRejected() {
        FencedRegister account = new FencedRegister();
        Lease paused = provider().tryAcquire(name("gc"), fixed(SHORT)).orElseThrow();
        // The holder stalls past its lease (a GC pause); another machine takes over and writes.
        try (Lease successor = machine(1).acquire(name("gc"), waiting(Duration.ofSeconds(20)))) {
            assertThat(account.write(successor.fencingToken(), "credit by successor"))
                    .isTrue();
        }
        // The stalled holder wakes up and writes with its old token: refused.
        assertThat(account.write(paused.fencingToken(), "stale credit")).isFalse();
        assertThat(account.value()).isEqualTo("credit by successor");
        paused.close();
    }

    /** Watchdog keeps a long holder's lock. */
    @Test
    public void watchdogKeepsALongHoldersLock() {
        Duration leaseTime = Duration.ofSeconds(1); // see renewedLeaseKeepsLongWorkOwned
        LockOptions renewed = LockOptions.custom().watchdog(leaseTime).build();
        try (Lease lease = provider().tryAcquire(name("long"), renewed).orElseThrow()) {
            // two lease lengths: without the watchdog the lock frees at 1 s and machine 1 takes it
            await().during(leaseTime.multipliedBy(2))
                    .atMost(leaseTime.multipliedBy(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> stillRefused(machine(1), name("long")));
            assertThat(lease.isHeld()).isTrue();
        }
    }

    private static boolean stillRefused(LockProvider locks, String name) {
        Optional<Lease> got = locks.tryAcquire(name);
        got.ifPresent(Lease::close);
        return got.isEmpty();
    }

    /** Acquire waits the wait time then fails. */
    @Test
    public void acquireWaitsTheWaitTimeThenFails() {
        Duration wait = Duration.ofMillis(500);
        try (Lease held = provider().tryAcquire(name("busy")).orElseThrow()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> machine(1).acquire(name("busy"), waiting(wait)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name("busy"));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(waited).isBetween(wait, wait.plusSeconds(3));
            assertThat(held.isHeld()).isTrue();
        }
    }

    /**
     * Waiter gets the lock when it is released.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void waiterGetsTheLockWhenItIsReleased() throws Exception {
        Lease held = provider().tryAcquire(name("handoff")).orElseThrow();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = pool.submit(() -> {
            waiting.countDown();
            try (Lease l = machine(1).acquire(name("handoff"), waiting(Duration.ofSeconds(20)))) {
                return l.fencingToken();
            }
        });
        waiting.await();
        long first = held.fencingToken();
        held.close();

        assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(first);
    }

    /** Extend keeps a fixed lease alive. */
    @Test
    public void extendKeepsAFixedLeaseAlive() {
        try (Lease lease = provider().tryAcquire(name("extend"), fixed(SHORT)).orElseThrow()) {
            assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
            await().during(SHORT.multipliedBy(2))
                    .atMost(SHORT.multipliedBy(10))
                    .until(() -> stillRefused(machine(1), name("extend")));
        }
    }

    /** Rejects bad names. */
    @Test
    public void rejectsBadNames() {
        for (String bad : new String[] {"", "  ", "a\nb", "x".repeat(201), "k\uD800", "k\uDBFF", "\uDC00k"}) {
            assertThatThrownBy(() -> provider().tryAcquire(bad)).isInstanceOf(InvalidIdentifierException.class);
        }
        assertThatThrownBy(() -> provider().tryAcquire(null)).isInstanceOf(InvalidIdentifierException.class);
    }

    /** Rejects zero and negative durations. */
    @Test
    public void rejectsZeroAndNegativeDurations() {
        assertThatThrownBy(() -> LockOptions.custom().leaseTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.custom().leaseTime(Duration.ofSeconds(-1)))
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.custom().waitTime(Duration.ofMillis(-1)))
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> LockOptions.custom().watchdog(Duration.ZERO)).hasMessageContaining("watchdogLease");
    }

    /**
     * One store blip must never let a second holder in: a failed renewal is retried and succeeds
     * once the store is back, long before the lease ends; nobody else acquires meanwhile.
     */
    @Test
    @ExpectedWarnings("renewals fail while the store is cut off, and the pool or driver reports the outage")
    public void watchdogRenewalSurvivesAStoreBlip() {
        StoreOutage.Fixture<LockProvider> f = outageFixture();
        Duration lease = Duration.ofSeconds(3);
        AtomicInteger lost = new AtomicInteger();
        LockOptions renewed = LockOptions.custom()
                .watchdog(lease)
                .onLeaseLost(l -> lost.incrementAndGet())
                .build();
        try (Lease held = f.store().tryAcquire(name("blip"), renewed).orElseThrow()) {
            f.outage().begin(Duration.ofMillis(1200)); // the first renewal (at 1 s) falls inside it
            // Half a second past the lease: only renewal keeps the lock, and the other machine
            // (every 50 ms) and the lost-lease callback get ten chances to see it lapse.
            long end = System.nanoTime() + lease.plusMillis(500).toNanos();
            AtomicInteger intruders = new AtomicInteger();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (acquiredByOther(f.otherMachine(), name("blip"))) {
                            intruders.incrementAndGet();
                        }
                        return System.nanoTime() - end >= 0;
                    });

            assertThat(intruders).hasValue(0);
            assertThat(lost).hasValue(0);
            assertThat(held.isHeld()).isTrue();
        }
    }

    private static boolean acquiredByOther(LockProvider other, String name) {
        try {
            Optional<Lease> got = other.tryAcquire(name);
            got.ifPresent(Lease::close);
            return got.isPresent();
        } catch (StoreUnavailableException paused) {
            return false; // the other machine's server is paused too
        }
    }

    /**
     * When no renewal can succeed within the lease, the holder is told: the callback runs, {@link
     * Lease#isHeld()} turns false, and another machine's later holder has a greater fence.
     */
    @Test
    @ExpectedWarnings("renewals fail while the store is cut off, and the pool or driver reports the outage")
    public void holderLearnsItLostTheLeaseWhenNoRenewalSucceedsInTime() {
        StoreOutage.Fixture<LockProvider> f = outageFixture();
        AtomicInteger lost = new AtomicInteger();
        LockOptions renewed = LockOptions.custom()
                .watchdog(Duration.ofSeconds(1))
                .onLeaseLost(l -> lost.incrementAndGet())
                .build();
        Lease held = f.store().tryAcquire(name("outage"), renewed).orElseThrow();
        f.outage().begin(Duration.ofSeconds(4));

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(lost).hasValue(1));
        assertThat(held.isHeld()).isFalse();
        Lease next = await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .ignoreException(StoreUnavailableException.class)
                .until(() -> f.otherMachine().tryAcquire(name("outage")), Optional::isPresent)
                .orElseThrow();
        try (next) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            held.close(); // the stale holder's close must leave the new holder alone
            assertThat(next.isHeld()).isTrue();
        }
    }

    /**
     * A thread whose earlier lease expired (and was taken by another machine) does not "re-enter"
     * with the stale fence: it gets nothing while the other holds the lock, then a fresh lease.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void sameThreadAfterItsLeaseExpiredAcquiresAnewInsteadOfReentering() throws Exception {
        LockProvider locks = provider();
        Lease stale = locks.tryAcquire(name("stale"), fixed(SHORT)).orElseThrow();
        Lease other = machine(1).acquire(name("stale"), waiting(Duration.ofSeconds(20)));

        assertThat(locks.tryAcquire(name("stale"))).isEmpty();
        long otherFence = other.fencingToken();
        other.close();
        try (Lease fresh = locks.tryAcquire(name("stale")).orElseThrow()) {
            assertThat(fresh.fencingToken()).isGreaterThan(otherFence);
            assertThat(fresh.isHeld()).isTrue();
            stale.close(); // closing the expired lease later must not release the fresh one
            assertThat(fresh.isHeld()).isTrue();
            assertThat(machine(1).tryAcquire(name("stale"))).isEmpty();
        }
    }

    /**
     * An explicit owner id that looks like a thread's implicit owner cannot re-enter its lock.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void explicitOwnerCannotImpersonateAThread() throws Exception {
        LockProvider locks = provider();
        try (Lease held = locks.tryAcquire(name("spoof")).orElseThrow()) {
            String impersonated = "thread:" + Thread.currentThread().getId();
            LockOptions spoof = LockOptions.custom()
                    .owner(impersonated)
                    .waitTime(Duration.ZERO)
                    .build();

            Optional<Lease> stolen =
                    pool.submit(() -> locks.tryAcquire(name("spoof"), spoof)).get(10, TimeUnit.SECONDS);

            assertThat(stolen).isEmpty();
            assertThat(held.isHeld()).isTrue();
        }
    }

    /** The longest lease any configuration accepts is stored; anything longer is refused up front. */
    @Test
    public void longestLeaseIsStoredAndLongerOrTooShortOnesAreRefused() {
        try (Lease lease = provider()
                .tryAcquire(name("forever"), fixed(LockOptions.MAX_DURATION))
                .orElseThrow()) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(machine(1).tryAcquire(name("forever"))).isEmpty();
            assertThat(lease.extend(LockOptions.MAX_DURATION)).isTrue();
        }
        assertThat(machine(1).tryAcquire(name("forever"))).hasValueSatisfying(Lease::close);

        assertThatThrownBy(() -> LockOptions.custom().leaseTime(Duration.ofDays(365L * 300)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime")
                .hasMessageContaining("100 years");
        assertThatThrownBy(() -> LockOptions.custom().leaseTime(ChronoUnit.FOREVER.getDuration()))
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.custom().waitTime(ChronoUnit.FOREVER.getDuration()))
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> LockOptions.custom().watchdog(Duration.ofMillis(10)))
                .hasMessageContaining("watchdogLease")
                .hasMessageContaining(LockOptions.MIN_WATCHDOG_LEASE.toString());
    }

    /** A resource that refuses writes carrying a fencing token lower than one it has seen (L5). */
    protected static final class FencedRegister {
        private long highest;
        private String value;

        /** An empty register that has seen no token yet. */
        public FencedRegister() {}

        /**
         * Writes {@code newValue} unless a higher token was seen before.
         *
         * @param fence the writer's fencing token
         * @param newValue the value to write
         * @return true if written, false if refused as stale
         */
        public synchronized boolean write(long fence, String newValue) {
            if (fence < highest) {
                return false;
            }
            highest = fence;
            value = newValue;
            return true;
        }

        /**
         * The value of the last accepted write.
         *
         * @return the value, or null before the first write
         */
        public synchronized String value() {
            return value;
        }
    }
}
