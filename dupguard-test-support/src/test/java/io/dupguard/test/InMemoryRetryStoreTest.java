package io.dupguard.test;

import io.dupguard.memory.InMemoryRetryStore;
import io.dupguard.retry.RetryStore;

class InMemoryRetryStoreTest extends AbstractRetryStoreContractTest {
    private final RetryStore store = new InMemoryRetryStore();

    @Override
    protected RetryStore store() {
        return store;
    }

    /** One JVM: the other "machines" share the same store. */
    @Override
    protected RetryStore machine(int i) {
        return store;
    }
}
