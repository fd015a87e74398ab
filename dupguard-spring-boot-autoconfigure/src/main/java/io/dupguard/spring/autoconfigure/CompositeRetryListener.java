package io.dupguard.spring.autoconfigure;

import io.dupguard.retry.Alert;
import io.dupguard.retry.RetryListener;
import java.util.List;
import java.util.function.Consumer;

/** Calls every retry listener bean in order; one that throws does not stop the others. */
final class CompositeRetryListener implements RetryListener {
    private final List<RetryListener> listeners;

    private CompositeRetryListener(List<RetryListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static RetryListener of(List<RetryListener> listeners) {
        if (listeners.isEmpty()) {
            return RetryListener.NONE;
        }
        return listeners.size() == 1 ? listeners.get(0) : new CompositeRetryListener(listeners);
    }

    private void each(Consumer<RetryListener> call) {
        for (RetryListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException ignored) {
                // listeners must not throw; one that does must not break a worker or the others
            }
        }
    }

    @Override
    public void onSucceeded(long taskId, String type, int attempt) {
        each(l -> l.onSucceeded(taskId, type, attempt));
    }

    @Override
    public void onRetryScheduled(long taskId, String type, int attempt, long delayMillis, Throwable failure) {
        each(l -> l.onRetryScheduled(taskId, type, attempt, delayMillis, failure));
    }

    @Override
    public void onBlocked(long taskId, String type, int attempt, Alert.Reason reason, String error) {
        each(l -> l.onBlocked(taskId, type, attempt, reason, error));
    }

    @Override
    public void onLeaseLost(long taskId, String type, int attempt) {
        each(l -> l.onLeaseLost(taskId, type, attempt));
    }

    @Override
    public void onPollFailed(Throwable failure) {
        each(l -> l.onPollFailed(failure));
    }
}
