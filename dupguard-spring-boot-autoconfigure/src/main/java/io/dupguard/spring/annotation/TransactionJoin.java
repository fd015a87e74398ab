package io.dupguard.spring.annotation;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import java.lang.reflect.Type;

/** Idempotency inside the caller's transaction, when the store can join one (the jdbc store). */
public interface TransactionJoin {
    /** Whether a transaction this store can join is active on the current thread. */
    boolean active();

    /** Runs the work once per key inside the active transaction. */
    <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E;
}
