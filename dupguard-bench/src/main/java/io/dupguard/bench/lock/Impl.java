package io.dupguard.bench.lock;

import java.util.function.Supplier;

/** A {@link LockImpl} from its labels and a client factory. */
record Impl(String name, LockImpl.Role role, String description, String waiting, Supplier<LockImpl.Client> clients)
        implements LockImpl {

    @Override
    public Client newClient() {
        return clients.get();
    }
}
