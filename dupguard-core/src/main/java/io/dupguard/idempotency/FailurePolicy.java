package io.dupguard.idempotency;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What happens to the claim when the work throws.
 *
 * <p>By default ({@link #releaseOnFailure()}) the claim is released, so a retry with the same key
 * runs the work again — right for transient failures (timeouts, unavailable dependencies). An
 * exception classified as <em>final</em> is instead stored as {@link RecordStatus#FAILED} and every
 * duplicate gets a {@link ReplayedFailureException} with the same type and message, the way an
 * HTTP API replays a 4xx answer: a validation error does not become valid by retrying.
 */
public final class FailurePolicy {
    private static final FailurePolicy RELEASE = new FailurePolicy(t -> false);

    private final Predicate<Throwable> isFinal;

    private FailurePolicy(Predicate<Throwable> isFinal) {
        this.isFinal = isFinal;
    }

    /**
     * Release the claim on every failure (the default).
     *
     * @return the shared default policy
     */
    public static FailurePolicy releaseOnFailure() {
        return RELEASE;
    }

    /**
     * Store and replay failures for which {@code isFinal} is true; release on the others.
     *
     * @param isFinal tells which failures are final; not null, thread-safe
     * @return a thread-safe policy
     */
    public static FailurePolicy storeFinal(Predicate<Throwable> isFinal) {
        return new FailurePolicy(Objects.requireNonNull(isFinal, "isFinal"));
    }

    /**
     * Store and replay failures that are instances of one of {@code finalTypes}.
     *
     * @param finalTypes the exception types whose instances are final; not null
     * @return a thread-safe policy
     */
    public static FailurePolicy storeFinal(Class<?>... finalTypes) {
        List<Class<?>> types = List.of(finalTypes);
        for (Class<?> type : types) {
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException("finalTypes must be Throwable types, got " + type.getName());
            }
        }
        return new FailurePolicy(t -> types.stream().anyMatch(type -> type.isInstance(t)));
    }

    /**
     * Whether {@code failure} is stored and replayed.
     *
     * @param failure what the work threw; not null
     * @return true if the failure is stored for replay, false if the claim is released
     */
    public boolean isFinal(Throwable failure) {
        return isFinal.test(failure);
    }
}
