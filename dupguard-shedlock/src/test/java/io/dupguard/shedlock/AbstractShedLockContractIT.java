package io.dupguard.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dupguard.lock.LockProvider;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * ShedLock's own code paths ({@code @SchedulerLock} in Spring, {@code DefaultLockingTaskExecutor})
 * on a dupguard backend. Each "node" is a dupguard provider on its own pool or client.
 */
abstract class AbstractShedLockContractIT {
    /** A dupguard provider for node 0 or 1, each on its own connections to the same store. */
    protected abstract LockProvider node(int i);

    private String name;
    private ExecutorService pool;

    @BeforeEach
    void newName() {
        name = "job-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdown(); // let a job finish its unlock
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            pool.shutdownNow();
        }
        ClockProvider.setClock(Clock.systemUTC());
    }

    private LockingTaskExecutor executor(int node, boolean renewal) {
        return new DefaultLockingTaskExecutor(
                DupguardShedLockProvider.builder(node(node)).renewal(renewal).build());
    }

    private LockConfiguration config(Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    /** Every second both nodes' schedulers fire the same cron job; each second runs once. */
    @Test
    void scheduledJobOnTwoContextsRunsEachExecutionOnce() {
        Recorder recorder = new Recorder();
        List<AnnotationConfigApplicationContext> contexts = new CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
                LockProvider locks = node(i);
                context.registerBean(
                        net.javacrumbs.shedlock.core.LockProvider.class, () -> DupguardShedLockProvider.create(locks));
                context.registerBean(Recorder.class, () -> recorder);
                context.register(SchedulingConfig.class);
                context.refresh();
                contexts.add(context);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> recorder.starts.size() >= 4);
        } finally {
            contexts.forEach(AnnotationConfigApplicationContext::close);
        }
        assertThat(recorder.maxRunning.get()).isEqualTo(1);
        // Both schedulers fire within milliseconds of each other; one execution a second means
        // consecutive starts are lockAtLeastFor (0.9 s) apart, less the time a start may lag its lock.
        List<Long> starts = List.copyOf(recorder.starts);
        for (int i = 1; i < starts.size(); i++) {
            assertThat(starts.get(i) - starts.get(i - 1))
                    .isGreaterThan(Duration.ofMillis(500).toNanos());
        }
        assertThat(recorder.fences).doesNotHaveDuplicates().isSorted();
    }

    /** Starts a job on node 0 that runs until the returned latch opens; returns once it runs. */
    private CountDownLatch startLongJob(boolean renewal, Duration atMost) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        pool.submit(() -> executor(0, renewal)
                .executeWithLock(
                        (Runnable) () -> {
                            started.countDown();
                            try {
                                finish.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        config(atMost, Duration.ZERO)));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        return finish;
    }

    /** Node 1 tries the job once; true if it ran (now or earlier). */
    private boolean otherRan(LockingTaskExecutor other, Duration atMost, AtomicBoolean ran) {
        other.executeWithLock((Runnable) () -> ran.set(true), config(atMost, Duration.ZERO));
        return ran.get();
    }

    /** A job that outlives lockAtMostFor: with renewal the other node never starts it meanwhile. */
    @Test
    void renewalKeepsALongJobFromRunningTwice() throws Exception {
        // 2 s, renewed every 667 ms: on the loaded 2-core machine a 900 ms Redis lease once went
        // without a renewal answer for its whole length and was lost (as it should then be).
        Duration atMost = Duration.ofSeconds(2);
        CountDownLatch finish = startLongJob(true, atMost);
        AtomicBoolean ran = new AtomicBoolean();
        LockingTaskExecutor other = executor(1, true);
        // Over two lockAtMostFor of the other node trying all the time.
        await().during(Duration.ofMillis(4500))
                .atMost(Duration.ofSeconds(15))
                .until(() -> !otherRan(other, atMost, ran));
        finish.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> otherRan(other, atMost, ran));
    }

    /** ShedLock's documented behaviour without renewal: the lock ends at lockAtMostFor, the job runs twice. */
    @Test
    void withoutRenewalALongJobOverlaps() throws Exception {
        Duration atMost = Duration.ofMillis(500);
        CountDownLatch finish = startLongJob(false, atMost);
        AtomicBoolean ran = new AtomicBoolean();
        LockingTaskExecutor other = executor(1, false);
        await().atMost(Duration.ofSeconds(15)).until(() -> otherRan(other, atMost, ran));
        assertThat(finish.getCount()).as("the first execution still runs").isEqualTo(1);
        finish.countDown();
    }

    /** lockAtLeastFor: a quick job keeps the lock until it ends, then the lock frees itself. */
    @Test
    void lockAtLeastForIsHonouredOnUnlock() {
        AtomicInteger runs = new AtomicInteger();
        long start = System.nanoTime();
        executor(0, false)
                .executeWithLock(
                        (Runnable) runs::incrementAndGet, config(Duration.ofSeconds(30), Duration.ofSeconds(2)));
        executor(1, false)
                .executeWithLock((Runnable) runs::incrementAndGet, config(Duration.ofSeconds(30), Duration.ZERO));
        if (System.nanoTime() - start < Duration.ofMillis(1800).toNanos()) { // a slow machine may get past it
            assertThat(runs).hasValue(1);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            executor(1, false)
                    .executeWithLock((Runnable) runs::incrementAndGet, config(Duration.ofSeconds(30), Duration.ZERO));
            return runs.get() >= 2;
        });
        assertThat(System.nanoTime() - start)
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos());
    }

    /** The job reads its fencing token; it grows across executions and nodes; outside a job there is none. */
    @Test
    void theJobSeesAGrowingFencingToken() {
        List<Long> tokens = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 4; i++) {
            DupguardShedLockProvider provider = DupguardShedLockProvider.create(node(i % 2));
            new DefaultLockingTaskExecutor(provider)
                    .executeWithLock(
                            (Runnable) () -> {
                                tokens.add(ShedLockFence.require());
                                assertThat(provider.fencingToken(name)).hasValue(tokens.get(tokens.size() - 1));
                            },
                            config(Duration.ofSeconds(30), Duration.ZERO));
        }
        assertThat(tokens).hasSize(4).doesNotHaveDuplicates().isSorted();
        assertThat(ShedLockFence.current()).isEqualTo(OptionalLong.empty());
    }

    /** SimpleLock.extend moves the lease (ShedLock's LockExtender path). */
    @Test
    void extendMovesTheLease() {
        var provider = DupguardShedLockProvider.create(node(0));
        var lock = provider.lock(config(Duration.ofMillis(400), Duration.ZERO)).orElseThrow();
        var extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        var other = DupguardShedLockProvider.create(node(1));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> other.lock(
                        config(Duration.ofSeconds(1), Duration.ZERO))
                .isEmpty());
        extended.unlock();
        assertThat(other.lock(config(Duration.ofSeconds(1), Duration.ZERO))).hasValueSatisfying(l -> l.unlock());
    }

    /**
     * ShedLock's clock set minutes off (the clock its own providers compare lock_until with): the
     * store's clock still decides. Ahead, the other node does not take a held lock; behind, the
     * holder does not keep it past its lease.
     */
    @Test
    void aSkewedClockNeitherStealsNorHoldsPastTheLease() {
        for (Duration skew : List.of(Duration.ofMinutes(10), Duration.ofMinutes(-10))) {
            ClockProvider.setClock(Clock.offset(Clock.systemUTC(), skew));
            var holder = DupguardShedLockProvider.create(node(0));
            var other = DupguardShedLockProvider.create(node(1));
            long acquired = System.nanoTime();
            var lock = holder.lock(config(Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
            assertThat(other.lock(config(Duration.ofSeconds(2), Duration.ZERO)))
                    .as("skew %s: a held lock is not taken", skew)
                    .isEmpty();
            await().atMost(Duration.ofSeconds(15)).until(() -> other.lock(config(Duration.ofSeconds(2), Duration.ZERO))
                    .map(l -> {
                        l.unlock();
                        return true;
                    })
                    .orElse(false));
            assertThat(System.nanoTime() - acquired)
                    .as("skew %s: freed at the lease, not before", skew)
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1900).toNanos());
            lock.unlock();
            name = name + "x";
        }
        assertThat(ClockProvider.now()).isAfter(Instant.now().minus(Duration.ofMinutes(11)));
    }

    /** What each scheduled execution did, shared by both contexts. */
    static final class Recorder {
        final List<Long> starts = new CopyOnWriteArrayList<>();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        final List<Long> fences = new CopyOnWriteArrayList<>();

        void run() {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                starts.add(System.nanoTime());
                fences.add(ShedLockFence.require());
            } finally {
                running.decrementAndGet();
            }
        }
    }

    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class SchedulingConfig {
        @Bean
        Job job(Recorder recorder) {
            return new Job(recorder);
        }
    }

    static class Job {
        private final Recorder recorder;

        Job(Recorder recorder) {
            this.recorder = recorder;
        }

        // Both nodes fire at each second; lockAtLeastFor covers their schedulers' difference.
        @Scheduled(cron = "* * * * * *")
        @SchedulerLock(name = "dupguard-shedlock-it-cron", lockAtLeastFor = "PT0.9S")
        public void everySecond() {
            recorder.run();
        }
    }
}
