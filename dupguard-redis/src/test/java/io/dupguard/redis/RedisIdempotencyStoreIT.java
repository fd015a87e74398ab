package io.dupguard.redis;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.StoreOutage;
import io.lettuce.core.RedisClient;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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

    /** A batch step is one script: one command for the whole batch. */
    @Override
    protected long roundTrips() {
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
}
