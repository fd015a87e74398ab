package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.StoreOutage;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The idempotency store contract on a real standalone Redis. */
class RedisIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {
    private static RedisClient client;
    private static RedisClient otherMachine;
    private static RedisClient dead;
    private static RedisIdempotencyStore store;
    private static RedisIdempotencyStore otherStore;
    private static RedisIdempotencyStore deadStore;
    /** Commands {@link #client} has sent: the round trips of {@link #store}. */
    private static final AtomicLong commands = new AtomicLong();

    @BeforeAll
    static void connect() {
        client = RedisFixtures.standaloneClient();
        client.addListener(new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commands.incrementAndGet();
            }
        });
        // A second client, so the "other machine" has its own connection and event loops.
        otherMachine = RedisFixtures.standaloneClient();
        dead = RedisFixtures.deadStandaloneClient();
        store = RedisIdempotencyStore.create(client);
        otherStore = RedisIdempotencyStore.create(otherMachine);
        deadStore = RedisIdempotencyStore.create(dead);
    }

    private static ThrowawayRedis pausable;
    private static RedisClient pausableA;
    private static RedisClient pausableB;
    private static RedisIdempotencyStore pausableStoreA;
    private static RedisIdempotencyStore pausableStoreB;

    /** A private server (pausing the shared one would stall other tests), two impatient clients. */
    @BeforeAll
    static void startPausable() throws Exception {
        pausable = new ThrowawayRedis();
        pausableA = RedisFixtures.impatientClient(pausable.url());
        pausableB = RedisFixtures.impatientClient(pausable.url());
        pausableStoreA = RedisIdempotencyStore.create(pausableA);
        pausableStoreB = RedisIdempotencyStore.create(pausableB);
    }

    @AfterAll
    static void stopPausable() throws Exception {
        pausableA.shutdown();
        pausableB.shutdown();
        pausable.close();
    }

    @Override
    protected StoreOutage.Fixture<IdempotencyStore> outageFixture() {
        return new StoreOutage.Fixture<>(pausableStoreA, pausableStoreB, pausable::pause);
    }

    @AfterAll
    static void shutdown() {
        store.close();
        otherStore.close();
        deadStore.close();
        client.shutdown();
        otherMachine.shutdown();
        dead.shutdown();
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    /**
     * A batch step is one script: one command for the whole batch. The scripts are loaded
     * first from another client, so that a server that has not cached them yet (a fresh one, or
     * after another suite's {@code SCRIPT FLUSH}) does not add its NOSCRIPT answer and the {@code
     * EVAL} that follows to the count.
     */
    @Override
    protected long roundTrips() {
        try (StatefulRedisConnection<String, String> admin = otherMachine.connect()) {
            for (RedisScript script : List.of(
                    IdempotencyScripts.CLAIM_MANY,
                    IdempotencyScripts.COMPLETE_MANY,
                    IdempotencyScripts.RELEASE_MANY,
                    IdempotencyScripts.COMPLETE,
                    IdempotencyScripts.RELEASE)) {
                admin.sync().scriptLoad(script.source());
            }
        }
        return commands.get();
    }

    @Override
    protected IdempotencyStore otherMachineStore() {
        return otherStore;
    }

    @Override
    protected IdempotencyStore unreachableStore() {
        return deadStore;
    }

    /** With batch scripts off (behind a key-sharding proxy), a batch is a command per key. */
    @Test
    void withBatchScriptsOffABatchIsACommandPerKey() {
        try (RedisIdempotencyStore keyByKey =
                RedisIdempotencyStore.builder(client).batchScripts(false).build()) {
            keyByKey.find(key("per-key-warm-up"));
            List<BatchEntry> batch = List.of(
                    BatchEntry.of(key("per-key-1")), BatchEntry.of(key("per-key-2")), BatchEntry.of(key("per-key-3")));
            long before = commands.get();
            assertThat(keyByKey.claimAll(batch, "per-key-owner", Duration.ofMinutes(1)))
                    .containsOnly(Claim.FRESH);
            assertThat(commands.get() - before).isEqualTo(3);
            keyByKey.releaseAll(batch.stream().map(BatchEntry::key).toList(), "per-key-owner");
            assertThat(keyByKey.find(key("per-key-2"))).isEmpty();
        }
    }
}
