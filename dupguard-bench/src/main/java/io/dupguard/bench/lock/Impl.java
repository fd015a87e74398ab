package io.dupguard.bench.lock;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import java.util.function.Supplier;

/** A {@link LockImpl} from its labels and a client factory; {@link #dupguard} for dupguard's rows. */
record Impl(String name, LockImpl.Role role, String description, String waiting, Supplier<LockImpl.Client> clients)
        implements LockImpl {

    @Override
    public Client newClient() {
        return clients.get();
    }

    /**
     * dupguard's {@link LockProvider} as a row, whatever the store — the one adapter of the library:
     * {@code acquire(name, LockOptions.ofDefaults())}, released by closing the lease.
     */
    static Impl dupguard(String name, String description, String waiting, LockProvider locks) {
        LockOptions options = LockOptions.ofDefaults();
        return new Impl(name, LockImpl.Role.DUPGUARD, description, waiting, () -> lockName -> {
            Lease lease = locks.acquire(lockName, options);
            return lease::close;
        });
    }
}
