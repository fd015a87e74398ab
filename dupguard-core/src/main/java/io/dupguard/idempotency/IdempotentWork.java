package io.dupguard.idempotency;

/**
 * The work to run once per key. Like {@link java.util.concurrent.Callable}, but the checked
 * exception type is inferred, so work that throws none needs no {@code catch}.
 *
 * @param <T> result type
 * @param <E> the checked exception the work may throw
 */
@FunctionalInterface
public interface IdempotentWork<T, E extends Exception> {
    /**
     * Runs the work.
     *
     * @return the result, possibly null
     * @throws E what the work throws
     */
    T call() throws E;
}
