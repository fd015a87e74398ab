package io.dupguard.spring.autoconfigure;

import io.dupguard.lock.Lease;
import io.dupguard.spring.annotation.LockObserver;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;

/** Every LockObserver bean, looked up once on first use; one that throws does not stop the others. */
final class CompositeLockObserver implements LockObserver, Supplier<LockObserver> {
    private final ObjectProvider<LockObserver> provider;
    private volatile List<LockObserver> observers;

    CompositeLockObserver(ObjectProvider<LockObserver> provider) {
        this.provider = provider;
    }

    @Override
    public LockObserver get() {
        if (observers == null) {
            observers = provider.orderedStream().toList();
        }
        return this;
    }

    private interface Call {
        void on(LockObserver o);
    }

    private void each(Call call) {
        for (LockObserver o : observers) {
            try {
                call.on(o);
            } catch (RuntimeException ignored) {
                // observers must not throw; one that does must not break the locked call
            }
        }
    }

    @Override
    public void onAcquired(Lease lease, long waitNanos) {
        each(o -> o.onAcquired(lease, waitNanos));
    }

    @Override
    public void onUnavailable(String name, long waitNanos) {
        each(o -> o.onUnavailable(name, waitNanos));
    }

    @Override
    public void onReleased(Lease lease, long heldNanos) {
        each(o -> o.onReleased(lease, heldNanos));
    }

    @Override
    public void onLeaseLost(Lease lease) {
        each(o -> o.onLeaseLost(lease));
    }
}
