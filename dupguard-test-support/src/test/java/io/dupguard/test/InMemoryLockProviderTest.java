package io.dupguard.test;

import io.dupguard.lock.InMemoryLockProvider;
import io.dupguard.lock.LockProvider;

class InMemoryLockProviderTest extends AbstractLockProviderContractTest {
    private final InMemoryLockProvider provider = new InMemoryLockProvider();
    private final LockProvider[] others = {provider.sibling(), provider.sibling()};

    @Override
    protected LockProvider provider() {
        return provider;
    }

    @Override
    protected LockProvider machine(int i) {
        return others[i - 1];
    }

    @Override
    protected int acquisitionsPerThread() {
        return 1000;
    }
}
