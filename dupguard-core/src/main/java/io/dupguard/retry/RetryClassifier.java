package io.dupguard.retry;

import java.util.List;
import java.util.Objects;

/**
 * Says whether a handler's failure may be retried (guarantee R3). A failure that may not goes to a
 * person at once (BLOCKED and an alert). Implementations must be thread-safe, fast and must not
 * throw; the lab's payment platform, for example, classifies by the platform's error code.
 */
@FunctionalInterface
public interface RetryClassifier {
    /** Every failure is retryable except a {@link NonRetryableException} anywhere in the cause chain. */
    RetryClassifier DEFAULT = notRetryingAny(List.of(NonRetryableException.class));

    /**
     * Whether the task should run again after {@code failure}.
     *
     * @param failure what the handler threw; never null
     * @return true to retry per the schedule, false to block the task at once
     */
    boolean isRetryable(Throwable failure);

    /**
     * Retries everything except failures that are, or are caused by, one of {@code types} (and
     * always blocks on {@link NonRetryableException}).
     *
     * @param types the exception types that are not retried; not null
     * @return a thread-safe classifier
     */
    static RetryClassifier notRetrying(Class<?>... types) {
        List<Class<?>> list = new java.util.ArrayList<>(List.of(types));
        list.add(NonRetryableException.class);
        return notRetryingAny(list);
    }

    /**
     * Retries only failures that are, or are caused by, one of {@code types}; a {@link
     * NonRetryableException} is never retried.
     *
     * @param types the exception types that are retried; not null
     * @return a thread-safe classifier
     */
    static RetryClassifier retryingOnly(Class<?>... types) {
        List<Class<?>> list = List.of(types);
        list.forEach(RetryClassifier::checkType);
        return failure -> !causedBy(failure, List.of(NonRetryableException.class)) && causedBy(failure, list);
    }

    private static RetryClassifier notRetryingAny(List<Class<?>> types) {
        types.forEach(RetryClassifier::checkType);
        List<Class<?>> copy = List.copyOf(types);
        return failure -> !causedBy(failure, copy);
    }

    private static void checkType(Class<?> type) {
        Objects.requireNonNull(type, "types must not contain null");
        if (!Throwable.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("types must be Throwable classes, was " + type.getName());
        }
    }

    private static boolean causedBy(Throwable failure, List<Class<?>> types) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            for (Class<?> type : types) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
        }
        return false;
    }
}
