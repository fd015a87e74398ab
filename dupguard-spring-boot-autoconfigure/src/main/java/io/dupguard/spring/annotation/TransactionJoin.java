package io.dupguard.spring.annotation;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import java.lang.reflect.Type;

/** Idempotency inside the caller's transaction, when the store can join one (the jdbc store). */
public interface TransactionJoin {
    /**
     * Whether a transaction this store can join is active on the current thread.
     *
     * @return true if {@link #execute} can run now
     */
    boolean active();

    /**
     * Runs the work once per key inside the active transaction.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param type the method's generic result type, used to decode replays; not null
     * @param work the operation; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws E what {@code work} threw (the transaction is then rolled back by its owner)
     */
    <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E;
}
