package io.dupguard.lab.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.lock.Lease;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A network partition that leaves the old master on the minority side: a master and its replica,
 * two {@code redis-server}s of the test's own, the replica replicating through a {@link
 * LoopbackRelay}, so {@link LoopbackRelay#partition()} cuts replication (both ways, no socket
 * closed). The clients on the master's side still reach it; the replica is promoted ({@code
 * REPLICAOF NO ONE}, as the Sentinels on the majority side do) and clients there use it.
 *
 * <p>Without {@code replicaAcks} the old master grants a lock and an idempotency claim that the new
 * master never sees, and a client of the new master gets the same name and key: two holders, the
 * work run twice. With {@code replicaAcks(1, …)} the old master's {@code WAIT} gets no
 * acknowledgement: the acquisition and the claim fail with {@link StoreUnavailableException}
 * (neither granted nor read as taken or free), are withdrawn, and nothing blocks the name or key on
 * the new master. After the heal the old master is made a replica of the new one: its full resync
 * discards what it granted alone, and its lock holder finds the lock no longer its own.
 */
class RedisMinorityMasterIT {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);
    private static final Fingerprint FP = Fingerprint.ofString("amount=10");

    @Test
    void theOldMasterGrantsWhatTheNewMasterNeverSeesUnlessReplicasMustAcknowledge() throws Exception {
        try (LabRedisServer oldMaster = new LabRedisServer(false);
                LabRedisServer replica = new LabRedisServer(false)) {
            RedisURI oldUri = RedisURI.create(oldMaster.url());
            RedisURI newUri = RedisURI.create(replica.url());
            oldUri.setTimeout(Duration.ofSeconds(2));
            newUri.setTimeout(Duration.ofSeconds(2));
            LoopbackRelay replication = LoopbackRelay.to(oldUri.getHost(), oldUri.getPort());
            RedisClient minority = RedisClient.create(oldUri);
            RedisClient majority = RedisClient.create(newUri);
            try (replication;
                    StatefulRedisConnection<String, String> oldAdmin = minority.connect();
                    StatefulRedisConnection<String, String> newAdmin = majority.connect();
                    RedisLockProvider oldLocks = RedisLockProvider.create(minority);
                    RedisLockProvider oldAckedLocks = RedisLockProvider.builder(minority)
                            .replicaAcks(1, ACK_TIMEOUT)
                            .build();
                    RedisLockProvider newLocks = RedisLockProvider.create(majority);
                    RedisIdempotencyStore oldStore = RedisIdempotencyStore.create(minority);
                    RedisIdempotencyStore oldAckedStore = RedisIdempotencyStore.builder(minority)
                            .replicaAcks(1, ACK_TIMEOUT)
                            .build();
                    RedisIdempotencyStore newStore = RedisIdempotencyStore.create(majority)) {
                RedisCommands<String, String> oldRedis = oldAdmin.sync();
                RedisCommands<String, String> newRedis = newAdmin.sync();
                for (RedisCommands<String, String> r : List.of(oldRedis, newRedis)) {
                    r.configSet("repl-diskless-sync-delay", "0"); // a full sync at once, not after 5 s
                }
                String[] relay = replication.address().split(":");
                newRedis.replicaof(relay[0], Integer.parseInt(relay[1]));
                await("the replica in sync through the relay")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> newRedis.info("replication").contains("master_link_status:up")
                                && oldRedis.info("replication").contains("state=online"));

                // connected, an acknowledged acquisition and claim succeed
                try (Lease before = oldAckedLocks.tryAcquire("warm-up").orElseThrow()) {
                    assertThat(before.isHeld()).isTrue();
                }
                assertThat(oldAckedStore.claim(key("warm-up"), FP, "a", LEASE)).isEqualTo(Claim.FRESH);

                replication.partition();
                newRedis.replicaofNoOne(); // the majority side's failover
                assertThat(newRedis.info("replication")).contains("role:master");

                // without replicaAcks: two holders, the work claimed twice
                Lease minorityHolder = oldLocks.tryAcquire("account:1").orElseThrow();
                Optional<Lease> majorityHolder = newLocks.tryAcquire("account:1");
                assertThat(majorityHolder)
                        .as("the same lock on the new master, while the old master's holder holds it")
                        .isPresent();
                assertThat(minorityHolder.isHeld()).isTrue();
                assertThat(oldStore.claim(key("payment:1"), FP, "a", LEASE)).isEqualTo(Claim.FRESH);
                assertThat(newStore.claim(key("payment:1"), FP, "b", LEASE))
                        .as("the same key claimed on the new master: the work runs twice")
                        .isEqualTo(Claim.FRESH);

                // with replicaAcks(1, …): the old master's WAIT times out, nothing is granted
                assertThatThrownBy(() -> oldAckedLocks.tryAcquire("account:2"))
                        .isInstanceOf(StoreUnavailableException.class);
                assertThatThrownBy(() -> oldAckedStore.claim(key("payment:2"), FP, "a", LEASE))
                        .isInstanceOf(StoreUnavailableException.class);
                assertThat(oldRedis.exists(oldLocks.keyPrefix() + "{account:2}"))
                        .as("the refused lock, withdrawn on the old master")
                        .isZero();
                assertThat(oldStore.find(key("payment:2")))
                        .as("the refused claim, withdrawn")
                        .isEmpty();
                try (Lease onNew = newLocks.tryAcquire("account:2").orElseThrow()) {
                    assertThat(onNew.isHeld())
                            .as("the name free on the new master")
                            .isTrue();
                }
                assertThat(newStore.claim(key("payment:2"), FP, "b", LEASE))
                        .as("the key free on the new master")
                        .isEqualTo(Claim.FRESH);
                long held = replication.heldBytes();
                assertThat(held).as("replication held by the partition").isPositive();

                // heal; the old master rejoins as a replica of the new one
                replication.heal();
                oldRedis.replicaof(newUri.getHost(), newUri.getPort());
                await("the old master resynced from the new one")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> oldRedis.info("replication").contains("master_link_status:up")
                                && newRedis.info("replication").contains("state=online"));
                String lockKey = oldLocks.keyPrefix() + "{account:1}";
                await("the new master's lock on the old master")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> newRedis.get(lockKey).equals(oldRedis.get(lockKey)));
                assertThat(oldStore.find(key("payment:1")).orElseThrow().owner())
                        .as("the claim the old master granted alone, replaced by the new master's")
                        .isEqualTo("b");
                assertThat(oldStore.find(key("warm-up")))
                        .as("the acknowledged claim from before the partition, on both")
                        .isPresent();
                assertThat(newStore.find(key("warm-up"))).isPresent();
                assertThat(minorityHolder.extend(LEASE))
                        .as("the old master's holder renewing on what is now a replica of the new one")
                        .isFalse();
                assertThat(minorityHolder.isHeld()).isFalse();
                assertThat(majorityHolder.orElseThrow().isHeld()).isTrue();
                System.out.printf(
                        "minority master: two holders and two claims without replicaAcks, none with;"
                                + " %d bytes held by the partition%n",
                        held);
                majorityHolder.orElseThrow().close();
            } finally {
                minority.shutdown();
                majority.shutdown();
            }
        }
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("minority", k);
    }
}
