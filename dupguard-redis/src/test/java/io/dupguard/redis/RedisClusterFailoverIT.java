package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A real Redis Cluster failover under {@code replicaAcks(1, …)}: {@code CLUSTER FAILOVER} sent to the
 * replica of the master owning one slot range of the cluster with a replica per master (7300-7305,
 * {@link RedisFixtures#replicaClusterSeeds()}), while threads with clients of their own claim and
 * lock keys of that range. The clients keep Lettuce's default options (no periodic or adaptive
 * topology refresh), so their slot map still names the old master afterwards: the first write there
 * is refused with {@code MOVED}, and only the provider's own refresh on {@code MOVED} lets it through.
 *
 * <p>Checks: every claim, result and lock acknowledged before the failover is on the new master; new
 * acknowledged claims and locks succeed afterwards with no manual refresh; no claim or lock is
 * granted twice across the threads. The cluster is failed back (and its layout checked) at the end,
 * since other tests ask the cluster who the masters are but expect three healthy ones.
 */
@Execution(ExecutionMode.CONCURRENT) // in the replica Cluster lane: see Lanes
@ResourceLock(Lanes.REPLICA_CLUSTER)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisClusterFailoverIT {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);
    private static final LockOptions HOLD =
            LockOptions.custom().leaseTime(LEASE).build();
    private static final int HELD = 20;
    private static final int THREADS = 6;
    private static final int CONTENDED = 120;

    private final String scope =
            "failover-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    private final RedisClient direct = RedisClient.create();
    private final List<AutoCloseable> stores = new ArrayList<>();
    private final List<RedisClusterClient> clients = new ArrayList<>();
    private RedisURI master;
    private RedisURI replica;
    private List<String> tags; // hash-tag contents whose slots the chosen master owns

    @BeforeAll
    void pickASlotRangeAndItsReplica() {
        Partitions nodes = clusterNodes();
        RedisClusterNode owner = nodes.getMasterBySlot(SlotHash.getSlot(scope + ":k0"));
        master = owner.getUri();
        replica = nodes.stream()
                .filter(n -> owner.getNodeId().equals(n.getSlaveOf()))
                .map(RedisClusterNode::getUri)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no replica of " + owner.getUri()));
        tags = new ArrayList<>();
        for (int i = 0; tags.size() < HELD + CONTENDED + 20; i++) {
            String tag = scope + ":k" + i;
            if (owner.hasSlot(SlotHash.getSlot(tag))) {
                tags.add(tag);
            }
        }
    }

    @AfterAll
    void failBackAndClose() throws Exception {
        try {
            // the old master catches up as a replica before it can take its slots back
            if (isMaster(replica)) {
                await("the old master " + master + " replicating from " + replica)
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> onNode(master, c -> c.info("replication")).contains("master_link_status:up"));
                failOver(master);
            }
            await("every node seeing " + master + " as master of its range, the cluster state ok")
                    .atMost(Duration.ofSeconds(20))
                    .until(this::healthy);
        } finally {
            for (AutoCloseable c : stores) {
                c.close();
            }
            clients.forEach(RedisClusterClient::shutdown);
            direct.shutdown();
        }
    }

    @Test
    void acknowledgedWritesSurviveTheFailoverNewOnesFollowItAndNoKeyHasTwoHolders() throws Exception {
        RedisClusterClient acked = client();
        RedisIdempotencyStore store =
                RedisIdempotencyStore.builder(acked).replicaAcks(1, ACK_TIMEOUT).build();
        RedisLockProvider locks =
                RedisLockProvider.builder(acked).replicaAcks(1, ACK_TIMEOUT).build();
        stores.add(store);
        stores.add(locks);

        // acknowledged before the failover: claims, half of them completed, and held locks
        List<String> before = tags.subList(0, HELD);
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < before.size(); i++) {
            IdempotencyKey key = idempotencyKey(before.get(i));
            assertThat(store.claim(key, Fingerprint.none(), "before", LEASE)).isEqualTo(Claim.FRESH);
            if (i % 2 == 0) {
                store.complete(key, "before", RecordStatus.COMPLETED, bytes("done" + i), LEASE);
            }
            held.add(locks.tryAcquire(before.get(i), HOLD).orElseThrow());
        }

        // many threads, a client each, contend for the same keys before, during and after the failover
        List<String> contended = tags.subList(HELD, HELD + CONTENDED);
        Map<String, AtomicInteger> claimGrants = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> lockGrants = new ConcurrentHashMap<>();
        AtomicInteger outages = new AtomicInteger();
        AtomicBoolean failedOver = new AtomicBoolean();
        AtomicInteger grantsAfter = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(THREADS);
        CountDownLatch done = new CountDownLatch(THREADS);
        List<Throwable> errors = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            RedisClusterClient own = client();
            RedisIdempotencyStore s = RedisIdempotencyStore.builder(own)
                    .replicaAcks(1, ACK_TIMEOUT)
                    .build();
            RedisLockProvider l =
                    RedisLockProvider.builder(own).replicaAcks(1, ACK_TIMEOUT).build();
            stores.add(s);
            stores.add(l);
            String owner = "thread-" + t;
            Thread thread = new Thread(
                    () -> {
                        // a thread asks again only for what it does not hold: its own repeat would be granted again
                        Set<String> myClaims = new HashSet<>();
                        Set<String> myLocks = new HashSet<>();
                        try {
                            started.countDown();
                            // rounds until every key was granted after the failover, or 20 s
                            long deadline =
                                    System.nanoTime() + Duration.ofSeconds(20).toNanos();
                            while (System.nanoTime() < deadline
                                    && !(failedOver.get()
                                            && claimGrants.size() == CONTENDED
                                            && lockGrants.size() == CONTENDED)) {
                                for (String tag : contended) {
                                    boolean after = failedOver.get();
                                    if (grant(
                                                    tag,
                                                    myClaims,
                                                    claimGrants,
                                                    outages,
                                                    () -> s.claim(idempotencyKey(tag), Fingerprint.none(), owner, LEASE)
                                                            == Claim.FRESH)
                                            && after) {
                                        grantsAfter.incrementAndGet();
                                    }
                                    // a lease is held to the end: a second grant is a second holder
                                    if (grant(tag, myLocks, lockGrants, outages, () -> l.tryAcquire(tag, HOLD)
                                                    .isPresent())
                                            && after) {
                                        grantsAfter.incrementAndGet();
                                    }
                                }
                            }
                        } catch (Throwable e) {
                            synchronized (errors) {
                                errors.add(e);
                            }
                        } finally {
                            done.countDown();
                        }
                    },
                    owner);
            thread.start();
        }
        started.await();
        await("a quarter of the contended keys granted before the failover")
                .atMost(Duration.ofSeconds(10))
                .until(() -> claimGrants.size() >= CONTENDED / 4);

        failOver(replica);
        failedOver.set(true);
        // the store and the lock provider above were made before the failover and are not refreshed
        List<String> afterwards = tags.subList(HELD + CONTENDED, tags.size());
        for (String tag : afterwards) {
            assertThat(store.claim(idempotencyKey(tag), Fingerprint.none(), "after", LEASE))
                    .as("a new acknowledged claim on %s after the failover", tag)
                    .isEqualTo(Claim.FRESH);
            assertThat(locks.tryAcquire(tag, HOLD))
                    .as("a new acknowledged lock on %s", tag)
                    .isPresent();
        }
        done.await();
        assertThat(errors).isEmpty();

        // on the new master itself (no client slot map involved)
        for (int i = 0; i < before.size(); i++) {
            String tag = before.get(i);
            assertThat(this.<List<String>>onNode(replica, c -> c.keys("*{" + tag + "}")))
                    .as("the claim and the lock of %s on the new master %s", tag, replica)
                    .hasSizeGreaterThanOrEqualTo(2);
        }
        try (RedisIdempotencyStore fresh = RedisIdempotencyStore.create(client());
                RedisLockProvider other = RedisLockProvider.create(client())) {
            for (int i = 0; i < before.size(); i++) {
                IdempotencyKey key = idempotencyKey(before.get(i));
                RecordStatus expected = i % 2 == 0 ? RecordStatus.COMPLETED : RecordStatus.IN_PROGRESS;
                assertThat(fresh.find(key))
                        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(expected));
                assertThat(other.tryAcquire(before.get(i), HOLD))
                        .as("%s still held", before.get(i))
                        .isEmpty();
                assertThat(held.get(i).isHeld()).isTrue();
            }
        }
        assertThat(claimGrants.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(lockGrants.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(claimGrants).as("every contended key claimed, in the end").hasSize(CONTENDED);
        assertThat(lockGrants).as("every contended lock granted, in the end").hasSize(CONTENDED);
        System.out.printf(
                "failover: %d contended keys, %d threads, grants after the failover %d, outages %d%n",
                CONTENDED, THREADS, grantsAfter.get(), outages.get());
        held.forEach(Lease::close);
    }

    /**
     * One attempt of a contending thread: skipped for a key it holds already ({@code mine}; its own
     * repeat would be granted again), counted in {@code grants} if granted, in {@code outages} if the
     * store was unavailable (the failover's pause, or a write withdrawn as not replicated).
     */
    private static boolean grant(
            String tag,
            Set<String> mine,
            Map<String, AtomicInteger> grants,
            AtomicInteger outages,
            BooleanSupplier attempt) {
        if (mine.contains(tag)) {
            return false;
        }
        try {
            if (!attempt.getAsBoolean()) {
                return false;
            }
        } catch (StoreUnavailableException e) {
            outages.incrementAndGet();
            return false;
        }
        mine.add(tag);
        grants.computeIfAbsent(tag, k -> new AtomicInteger()).incrementAndGet();
        return true;
    }

    /**
     * {@code CLUSTER FAILOVER} on {@code node} (a replica), then waits until it reports role master.
     * A manual failover gives up by itself when the replica does not reach the master's offset in
     * time (a loaded machine, a replica still syncing after it was demoted), so the command is sent
     * again, up to three times.
     */
    private void failOver(RedisURI node) {
        for (int attempt = 1; ; attempt++) {
            assertThat(this.<String>onNode(node, c -> c.clusterFailover(false))).isEqualTo("OK");
            try {
                await(node + " reporting role master (attempt " + attempt + ")")
                        .atMost(Duration.ofSeconds(12))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> isMaster(node));
                return;
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private boolean isMaster(RedisURI node) {
        return "master".equals(String.valueOf(onNode(node, RedisCommands::role).get(0)));
    }

    /** Every node: state ok, all slots served, {@link #master} the range's master and {@link #replica} its replica. */
    private boolean healthy() {
        for (RedisClusterNode n : clusterNodes()) {
            String info = onNode(n.getUri(), c -> c.clusterInfo());
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")) {
                return false;
            }
            Partitions view = ClusterPartitionParser.parse(this.<String>onNode(n.getUri(), c -> c.clusterNodes()));
            RedisClusterNode owner = view.getMasterBySlot(SlotHash.getSlot(tags.get(0)));
            boolean replicaFollows = view.stream()
                    .anyMatch(r -> r.getUri().getPort() == replica.getPort()
                            && r.is(RedisClusterNode.NodeFlag.REPLICA)
                            && owner.getNodeId().equals(r.getSlaveOf()));
            if (owner.getUri().getPort() != master.getPort() || !replicaFollows) {
                return false;
            }
        }
        return isMaster(master) && !isMaster(replica);
    }

    private Partitions clusterNodes() {
        RedisURI seed = RedisFixtures.replicaClusterSeeds().get(0);
        return ClusterPartitionParser.parse(this.<String>onNode(seed, RedisCommands::clusterNodes));
    }

    private <T> T onNode(RedisURI node, java.util.function.Function<RedisCommands<String, String>, T> command) {
        try (StatefulRedisConnection<String, String> c =
                direct.connect(RedisFixtures.uri("redis://" + node.getHost() + ":" + node.getPort()))) {
            return command.apply(c.sync());
        }
    }

    /** A cluster client with Lettuce's default options: no topology refresh but the provider's own. */
    private RedisClusterClient client() {
        RedisClusterClient c = RedisClusterClient.create(RedisFixtures.replicaClusterSeeds());
        clients.add(c); // shut down after the stores on it are closed
        return c;
    }

    private IdempotencyKey idempotencyKey(String tag) {
        return IdempotencyKey.of(scope, tag.substring(scope.length() + 1));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
