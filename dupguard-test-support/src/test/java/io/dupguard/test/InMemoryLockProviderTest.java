package io.dupguard.test;

import io.dupguard.lock.LockProvider;
import io.dupguard.memory.InMemoryLockProvider;

class InMemoryLockProviderTest extends AbstractLockProviderContractTest {
    private final InMemoryLockProvider provider = new InMemoryLockProvider();
    private final LockProvider[] others = {provider.sibling(), provider.sibling()};

    private final OutageClock outageClock = new OutageClock();
    private final InMemoryLockProvider flaky = new InMemoryLockProvider(outageClock);

    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(flaky, flaky.sibling(), outageClock);
    }

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
