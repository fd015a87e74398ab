package io.dupguard.lock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockUnavailableException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The direct hand-off of {@link AbstractLockProvider} between threads of one JVM, on a provider whose
 * "store" is a map in this test, so that a hook can act at the exact moment of the hand-over. The
 * real backends run the same code under the lock contract tests.
 */
class AbstractLockProviderHandOffTest {
    private static final LockOptions WAIT =
            LockOptions.custom().waitTime(Duration.ofSeconds(20)).build();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** Lock rows in a map; {@code afterTransfer} runs right after each hand-over, outside the monitor. */
    private static final class MapLocks extends AbstractLockProvider {
        private record Row(String owner, long fence, long expiresNanos) {}

        private final Map<String, Row> rows = new HashMap<>();
        volatile Runnable afterTransfer = () -> {};
        int transfers; // guarded by this
        int unlocks; // guarded by this

        @Override
        protected synchronized OptionalLong tryLock(String name, String token, Duration lease) {
            Row row = rows.get(name);
            if (row != null && row.owner != null && row.expiresNanos - System.nanoTime() > 0) {
                return OptionalLong.empty();
            }
            long fence = row == null ? 1 : row.fence + 1;
            rows.put(name, new Row(token, fence, System.nanoTime() + lease.toNanos()));
            return OptionalLong.of(fence);
        }

        @Override
        protected synchronized boolean extend(String name, String token, Duration lease) {
            Row row = rows.get(name);
            if (!held(row, token)) {
                return false;
            }
            rows.put(name, new Row(token, row.fence, System.nanoTime() + lease.toNanos()));
            return true;
        }

        @Override
        protected synchronized void unlock(String name, String token) {
            Row row = rows.get(name);
            if (row != null && token.equals(row.owner)) {
                rows.put(name, new Row(null, row.fence, System.nanoTime()));
                unlocks++;
            }
        }

        @Override
        protected synchronized boolean isHeld(String name, String token) {
            return held(rows.get(name), token);
        }

        @Override
        protected OptionalLong transfer(String name, String fromToken, String toToken, Duration lease) {
            OptionalLong fence;
            synchronized (this) {
                Row row = rows.get(name);
                if (!held(row, fromToken)) {
                    return OptionalLong.empty();
                }
                rows.put(name, new Row(toToken, row.fence + 1, System.nanoTime() + lease.toNanos()));
                transfers++;
                fence = OptionalLong.of(row.fence + 1);
            }
            afterTransfer.run();
            return fence;
        }

        @Override
        protected boolean transfersLocally() {
            return true;
        }

        synchronized String owner(String name) {
            Row row = rows.get(name);
            return row == null ? null : row.owner;
        }

        synchronized int transfers() {
            return transfers;
        }

        synchronized int unlocks() {
            return unlocks;
        }

        private static boolean held(Row row, String token) {
            return row != null && token.equals(row.owner) && row.expiresNanos - System.nanoTime() > 0;
        }
    }

    /** A new thread each time: locks are reentrant per thread, so a reused thread would not wait. */
    private Future<Lease> waitInAnotherThread(MapLocks locks, String name, AtomicReference<Thread> thread) {
        FutureTask<Lease> waiting = new FutureTask<>(() -> locks.acquire(name, WAIT));
        Thread t = new Thread(waiting, "waiter");
        t.setDaemon(true);
        thread.set(t);
        t.start();
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> thread.get() != null && thread.get().getState() == Thread.State.TIMED_WAITING);
        return waiting;
    }

    @Test
    void theNextLocalWaiterGetsTheLockWithoutAReleaseInTheStore() throws Exception {
        MapLocks locks = new MapLocks();
        Lease first = locks.acquire("n", WAIT);
        Future<Lease> second = waitInAnotherThread(locks, "n", new AtomicReference<>());

        first.close();
        Lease next = second.get(20, TimeUnit.SECONDS);

        assertThat(next.fencingToken()).isEqualTo(first.fencingToken() + 1);
        assertThat(next.isHeld()).isTrue();
        assertThat(first.isHeld()).isFalse();
        assertThat(locks.transfers()).isEqualTo(1);
        assertThat(locks.unlocks()).isZero();
        next.close();
        assertThat(locks.owner("n")).isNull();
        assertThat(locks.unlocks()).isOne();
    }

    @Test
    void aLockHandedToAWaiterThatGaveUpIsReleasedInTheStore() throws Exception {
        MapLocks locks = new MapLocks();
        Lease first = locks.acquire("n", WAIT);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Lease> second = waitInAnotherThread(locks, "n", waiter);
        locks.afterTransfer = () -> waiter.get().interrupt(); // it gives up as the lock is handed to it

        first.close();

        assertThatThrownBy(() -> second.get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockUnavailableException.class);
        assertThat(locks.transfers()).isEqualTo(1);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> locks.owner("n") == null);
        try (Lease again = locks.tryAcquire("n").orElseThrow()) {
            assertThat(again.fencingToken()).isEqualTo(first.fencingToken() + 2);
        }
    }

    @Test
    void afterAStreakOfHandOffsTheLockIsReleasedInTheStore() throws Exception {
        MapLocks locks = new MapLocks();
        Lease held = locks.acquire("n", WAIT);
        for (int i = 0; i < AbstractLockProvider.MAX_LOCAL_HANDOFFS + 1; i++) {
            Future<Lease> next = waitInAnotherThread(locks, "n", new AtomicReference<>());
            held.close();
            held = next.get(20, TimeUnit.SECONDS);
        }
        held.close();

        assertThat(locks.transfers()).isEqualTo(AbstractLockProvider.MAX_LOCAL_HANDOFFS);
        assertThat(locks.unlocks()).isEqualTo(2); // the streak's end, and the last close
        assertThat(locks.owner("n")).isNull();
    }

    @Test
    void aWaiterWithAnotherLeaseResetsTheHandedLeaseToItsOwn() throws Exception {
        MapLocks locks = new MapLocks();
        Lease first = locks.acquire("n", WAIT);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        LockOptions shortLease = LockOptions.custom()
                .leaseTime(Duration.ofMillis(200))
                .waitTime(Duration.ofSeconds(20))
                .build();
        Future<Lease> second = pool.submit(() -> {
            waiter.set(Thread.currentThread());
            return locks.acquire("n", shortLease);
        });
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);

        first.close();
        Lease next = second.get(20, TimeUnit.SECONDS);

        assertThat(locks.transfers()).isEqualTo(1);
        // Its own 200 ms lease, not the 30 s the first holder's watchdog lease would have left it.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !next.isHeld());
        next.close();
    }
}
