package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyListener;
import java.util.List;

/** Calls every listener bean in order; one that throws does not stop the others. */
final class CompositeIdempotencyListener implements IdempotencyListener {
    private final List<IdempotencyListener> listeners;

    private CompositeIdempotencyListener(List<IdempotencyListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static IdempotencyListener of(List<IdempotencyListener> listeners) {
        if (listeners.isEmpty()) {
            return IdempotencyListener.NONE;
        }
        return listeners.size() == 1 ? listeners.get(0) : new CompositeIdempotencyListener(listeners);
    }

    private interface Call {
        void on(IdempotencyListener l);
    }

    private void each(Call call) {
        for (IdempotencyListener l : listeners) {
            try {
                call.on(l);
            } catch (RuntimeException ignored) {
                // listeners must not throw; one that does must not break the call or the others
            }
        }
    }

    @Override
    public void onFirst(IdempotencyKey key, long nanos) {
        each(l -> l.onFirst(key, nanos));
    }

    @Override
    public void onReplay(IdempotencyKey key) {
        each(l -> l.onReplay(key));
    }

    @Override
    public void onInFlight(IdempotencyKey key) {
        each(l -> l.onInFlight(key));
    }

    @Override
    public void onMismatch(IdempotencyKey key) {
        each(l -> l.onMismatch(key));
    }

    @Override
    public void onFailure(IdempotencyKey key, Throwable failure, boolean stored) {
        each(l -> l.onFailure(key, failure, stored));
    }

    @Override
    public void onTakeover(IdempotencyKey key) {
        each(l -> l.onTakeover(key));
    }

    @Override
    public void onLeaseLost(IdempotencyKey key) {
        each(l -> l.onLeaseLost(key));
    }
}
