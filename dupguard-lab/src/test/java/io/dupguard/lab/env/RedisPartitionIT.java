package io.dupguard.lab.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.jdbc.Fence;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.connection.DisconnectedEvent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A Redis lock holder cut off from Redis by a real partition: its client reaches a {@code
 * redis-server} of the test's own through a {@link LoopbackRelay}, which {@link
 * LoopbackRelay#partition() stops forwarding} both ways (sockets stay open: commands hang until the
 * client's 300 ms command timeout, nothing is reset), while a second holder's client goes to the
 * server directly. The holder's watchdog renewals fail, it is told the lease is lost when the lease
 * runs out, the second holder gets the lock only once the key has expired on the server, and the
 * old holder's fenced write ({@link Fence}, H2) is refused by its token. After the heal, the
 * renewals held during the partition arrive and change nothing, and the old holder's release leaves
 * the new holder's lock alone.
 */
class RedisPartitionIT {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
    private static final String NAME = "account:42";

    @Test
    void aHolderCutOffFromRedisLosesTheLockAtItsLeaseEndAndItsFencedWriteIsRefused() throws Exception {
        long start = System.nanoTime();
        Fence fence = Fence.on("account", "id", "fence");
        try (LabRedisServer server = new LabRedisServer(false);
                Connection db = DriverManager.getConnection("jdbc:h2:mem:partition;DB_CLOSE_DELAY=-1")) {
            try (Statement s = db.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance INT, fence BIGINT)");
                s.execute("INSERT INTO account VALUES (42, 0, NULL)");
            }
            RedisURI direct = RedisURI.create(server.url());
            LoopbackRelay relay = LoopbackRelay.to(direct.getHost(), direct.getPort());
            RedisURI throughRelay = RedisURI.create("redis://" + relay.address());
            throughRelay.setTimeout(COMMAND_TIMEOUT);
            direct.setTimeout(Duration.ofSeconds(2));
            RedisClient cutOff = RedisClient.create(throughRelay);
            RedisClient other = RedisClient.create(direct);
            AtomicLong drops = new AtomicLong(); // a partition closes nothing: the client sees no disconnect
            cutOff.getResources()
                    .eventBus()
                    .get()
                    .filter(e -> e instanceof DisconnectedEvent)
                    .subscribe(e -> drops.incrementAndGet());
            try (relay;
                    RedisLockProvider holderLocks = RedisLockProvider.create(cutOff);
                    RedisLockProvider otherLocks = RedisLockProvider.create(other);
                    StatefulRedisConnection<String, String> inspect = other.connect()) {
                // The cut-off client's first connection (its handshake under the 300 ms command
                // timeout) is made before the partition: on a loaded machine a first try can time out.
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
                    holderLocks.tryAcquire("warm-up").ifPresent(Lease::close);
                    return true;
                });
                phase(start, "connected");
                AtomicLong lostAt = new AtomicLong();
                CountDownLatch lost = new CountDownLatch(1);
                long acquiredAt = System.nanoTime();
                Lease first = holderLocks
                        .tryAcquire(
                                NAME,
                                LockOptions.custom()
                                        .watchdog(LEASE)
                                        .onLeaseLost(l -> {
                                            lostAt.set(System.nanoTime());
                                            lost.countDown();
                                        })
                                        .build())
                        .orElseThrow();
                assertThat(fence.update(db, 42, first.fencingToken(), "balance = ?", 100))
                        .isTrue();
                String key = holderLocks.keyPrefix() + "{" + NAME + "}";

                // renewed through the relay while it forwards: past 2/3 of the first lease, the key
                // has more than 5/6 of a lease left
                await("a renewal through the relay")
                        .atMost(LEASE.multipliedBy(2))
                        .until(() -> System.nanoTime() - acquiredAt > LEASE.toNanos() * 2 / 3
                                && inspect.sync().pttl(key) > LEASE.toMillis() * 5 / 6);

                phase(start, "renewed");
                relay.partition();
                long cutAt = System.nanoTime();
                long expiresAt =
                        cutAt + TimeUnit.MILLISECONDS.toNanos(inspect.sync().pttl(key));
                assertThat(otherLocks.tryAcquire(NAME))
                        .as("held while the holder is cut off")
                        .isEmpty();
                assertThatThrownBy(() -> first.extend(LEASE))
                        .as("a renewal through the partition")
                        .isInstanceOf(StoreUnavailableException.class);

                // the second holder waits for the lock, through its own client
                Lease second = otherLocks.acquire(
                        NAME,
                        LockOptions.custom()
                                .leaseTime(Duration.ofSeconds(30))
                                .waitTime(LEASE.multipliedBy(2))
                                .build());
                long grantedAt = System.nanoTime();
                assertThat(lost.await(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS))
                        .as("the holder told it lost the lease")
                        .isTrue();
                assertThat(first.isHeld()).isFalse();
                assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
                assertThat(fence.update(db, 42, second.fencingToken(), "balance = ?", 200))
                        .isTrue();
                assertThat(fence.update(db, 42, first.fencingToken(), "balance = ?", 999))
                        .as("the old holder's fenced write")
                        .isFalse();
                long heldBytes = relay.heldBytes();
                assertThat(heldBytes).as("renewals sent into the partition").isPositive();

                phase(start, "granted");
                relay.heal();
                first.close(); // through the healed relay: must not release the second holder's lock
                await("the holder's client through the healed relay")
                        .atMost(Duration.ofSeconds(5))
                        .ignoreExceptions()
                        .until(() -> holderLocks
                                .tryAcquire("after-heal")
                                .map(l -> {
                                    l.close();
                                    return true;
                                })
                                .orElse(false));
                assertThat(second.isHeld())
                        .as("the second holder, after the heal")
                        .isTrue();
                assertThat(holderLocks.tryAcquire(NAME))
                        .as("the old holder asking again")
                        .isEmpty();
                assertThat(drops).as("disconnects seen by the cut-off client").hasValue(0);
                try (Statement s = db.createStatement();
                        var rs = s.executeQuery("SELECT balance, fence FROM account WHERE id = 42")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(200);
                    assertThat(rs.getLong(2)).isEqualTo(second.fencingToken());
                }
                phase(start, "after heal");
                second.close();
                System.out.printf(
                        "partition: cut at 0 ms, key expired on the server at %d ms, holder told lost at %d ms,"
                                + " second holder granted at %d ms; %d bytes held by the partition%n",
                        ms(expiresAt - cutAt), ms(lostAt.get() - cutAt), ms(grantedAt - cutAt), heldBytes);
                assertThat(grantedAt)
                        .as("granted no earlier than the key's expiry")
                        .isGreaterThanOrEqualTo(expiresAt - TimeUnit.MILLISECONDS.toNanos(50));
                assertThat(lostAt.get() - expiresAt)
                        .as("told lost once the lease ran out: its last renewal, sent just before, times out")
                        .isBetween(
                                -TimeUnit.MILLISECONDS.toNanos(100),
                                COMMAND_TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(200));
            } finally {
                phase(start, "closing");
                cutOff.shutdown();
                other.shutdown();
                phase(start, "clients shut down");
                try (Statement s = db.createStatement()) {
                    s.execute("DROP TABLE account");
                } catch (SQLException ignored) {
                    // the database goes with the JVM
                }
            }
        }
    }

    private static void phase(long start, String what) {
        System.out.printf("partition test: %s at %d ms%n", what, ms(System.nanoTime() - start));
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
