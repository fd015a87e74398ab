package io.dupguard.test;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.*;
import io.dupguard.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.Optional;

class InMemoryIdempotencyStoreTest extends AbstractIdempotencyStoreContractTest {
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    private final OutageClock outageClock = new OutageClock();
    private final InMemoryIdempotencyStore flaky = new InMemoryIdempotencyStore(outageClock);

    @Override
    protected StoreOutage.Fixture<IdempotencyStore> outageFixture() {
        return new StoreOutage.Fixture<>(flaky, flaky, outageClock);
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    /** Memory is never unreachable; this stands in for a store whose every call fails. */
    @Override
    protected IdempotencyStore unreachableStore() {
        return new IdempotencyStore() {
            private StoreUnavailableException down() {
                return new StoreUnavailableException("memory", "simulated outage", null);
            }

            @Override
            public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
                throw down();
            }

            @Override
            public void complete(
                    IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
                throw down();
            }

            @Override
            public void release(IdempotencyKey key, String owner) {
                throw down();
            }

            @Override
            public boolean renew(IdempotencyKey key, String owner, Duration lease) {
                throw down();
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey key) {
                throw down();
            }
        };
    }
}
