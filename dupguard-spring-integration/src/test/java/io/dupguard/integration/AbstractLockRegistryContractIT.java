package io.dupguard.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.lock.LockProvider;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * The registry's rules and Spring Integration's own {@code LockRegistryLeaderInitiator} on a
 * dupguard backend; each node is a dupguard provider on its own pool or client.
 */
abstract class AbstractLockRegistryContractIT {
    /** A node of its own: a provider on new connections, and how to cut them. */
    protected record Node(LockProvider locks, Runnable kill) {}

    /** A new node on its own pool or client; the test kills or {@link #close}s it. */
    protected abstract Node newNode();

    /** Releases a node the test did not kill. */
    protected abstract void close(Node node);

    private final List<Node> nodes = new CopyOnWriteArrayList<>();
    private String key;
    private ExecutorService pool;

    @BeforeEach
    void newKey() {
        key = "reg-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdown(); // let a job finish its unlock
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            pool.shutdownNow();
        }
        nodes.forEach(this::close);
        nodes.clear();
    }

    private Node node() {
        Node node = newNode();
        nodes.add(node);
        return node;
    }

    @Test
    void theHolderThreadOnlyAndReentrant() throws Exception {
        DupguardLockRegistry registry = DupguardLockRegistry.create(node().locks());
        DupguardLockRegistry.DupguardLock lock = registry.obtain(key);
        assertThat(registry.obtain(key)).isSameAs(lock);
        lock.lock();
        long fence = lock.fencingToken();
        assertThat(lock.tryLock()).isTrue(); // reentrant: renews, same lease
        assertThat(lock.fencingToken()).isEqualTo(fence);
        assertThat(pool.submit(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).get())
                .isFalse();
        Future<?> foreignUnlock = pool.submit(lock::unlock);
        assertThatThrownBy(foreignUnlock::get).hasCauseInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThat(pool.submit(() -> lock.tryLock()).get())
                .as("still held once")
                .isFalse();
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Threads of two nodes count one effect at a time; fences grow with each holding. */
    @Test
    void mutualExclusionAcrossNodes() throws Exception {
        List<Lock> locks = List.of(
                DupguardLockRegistry.create(node().locks()).obtain(key),
                DupguardLockRegistry.create(node().locks()).obtain(key));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<Long> fences = new CopyOnWriteArrayList<>();
        List<Future<?>> workers = new CopyOnWriteArrayList<>();
        for (int t = 0; t < 8; t++) {
            Lock lock = locks.get(t % 2);
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 5; i++) {
                    lock.lockInterruptibly();
                    try {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        fences.add(((DupguardLockRegistry.DupguardLock) lock).fencingToken());
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(maxInside).hasValue(1);
        assertThat(fences).hasSize(40).doesNotHaveDuplicates().isSorted();
    }

    /** A fixed ttl that runs out: another node takes the lock, the late unlock reports it. */
    @Test
    void aLostFixedLeaseIsReportedOnUnlock() throws Exception {
        DupguardLockRegistry.DupguardLock first = DupguardLockRegistry.builder(node().locks())
                .ttl(Duration.ofMillis(300))
                .renewal(false)
                .build()
                .obtain(key);
        DupguardLockRegistry.DupguardLock second =
                DupguardLockRegistry.create(node().locks()).obtain(key);
        first.lock();
        long firstFence = first.fencingToken();
        CountDownLatch taken = new CountDownLatch(1);
        AtomicReference<Long> secondFence = new AtomicReference<>();
        pool.submit(() -> {
            second.lock();
            secondFence.set(second.fencingToken());
            taken.countDown();
            second.unlock();
            return null;
        });
        assertThat(taken.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(secondFence.get()).isGreaterThan(firstFence);
        assertThatThrownBy(first::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    /**
     * Two {@code LockRegistryLeaderInitiator}s on separate nodes elect one leader; the leader's
     * connections are cut and the other takes over with a larger fencing token.
     */
    @Test
    void leaderInitiatorsElectOneLeaderAndFailOver() {
        record Grant(int node, long fence) {}
        List<Grant> grants = new CopyOnWriteArrayList<>();
        AtomicInteger leaders = new AtomicInteger();
        AtomicInteger maxLeaders = new AtomicInteger();
        List<Node> members = List.of(node(), node());
        List<LockRegistryLeaderInitiator> initiators = new CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                int id = i;
                DupguardLockRegistry registry = DupguardLockRegistry.builder(
                                members.get(i).locks())
                        .ttl(Duration.ofSeconds(1))
                        .build();
                LockRegistryLeaderInitiator initiator =
                        new LockRegistryLeaderInitiator(registry, new DefaultCandidate("node-" + i, key) {
                            @Override
                            public void onGranted(Context ctx) {
                                maxLeaders.accumulateAndGet(leaders.incrementAndGet(), Math::max);
                                grants.add(new Grant(id, registry.obtain(key).fencingToken()));
                            }

                            @Override
                            public void onRevoked(Context ctx) {
                                leaders.decrementAndGet();
                            }
                        });
                initiator.setHeartBeatMillis(200);
                initiator.setBusyWaitMillis(50);
                initiator.start();
                initiators.add(initiator);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> !grants.isEmpty());
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> leaders.get() == 1);
            assertThat(maxLeaders).hasValue(1);
            Grant first = grants.get(0);
            members.get(first.node()).kill().run();
            nodes.remove(members.get(first.node()));
            await().atMost(Duration.ofSeconds(30)).until(() -> grants.stream().anyMatch(g -> g.node() != first.node()));
            Grant next = grants.stream()
                    .filter(g -> g.node() != first.node())
                    .findFirst()
                    .orElseThrow();
            assertThat(next.fence()).isGreaterThan(first.fence());
            assertThat(grants.stream().mapToLong(Grant::fence).toArray()).isSorted();
        } finally {
            initiators.forEach(LockRegistryLeaderInitiator::stop);
        }
    }
}
