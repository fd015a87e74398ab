package io.dupguard.spring;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Objects;

/**
 * How an integration (the HTTP filter, {@code @Idempotent}, the AMQP listener dedup) runs one keyed
 * operation, and so <b>where its record commits relative to the operation's effect</b>:
 *
 * <table>
 *   <caption>Modes</caption>
 *   <tr><th>mode</th><th>record</th><th>a crash after the effect committed</th></tr>
 *   <tr><td>{@link Mode#TRANSACTIONAL}</td><td>the jdbc store's row, claimed and completed in the
 *       same database transaction as the application's writes</td><td>cannot happen apart: the record
 *       and the effect commit together; a retry replays</td></tr>
 *   <tr><td>{@link Mode#BACKSTOP}</td><td>the store in front (Redis) rejects or replays fast; a jdbc
 *       row in the application's transaction decides</td><td>the front's claim stays in flight until
 *       its lease ends; the retry then finds the committed row and replays it</td></tr>
 *   <tr><td>{@link Mode#STORE}</td><td>the store only, completed after the work returned</td><td>the
 *       claim stays in flight until its lease ends; the retry then <b>runs the work again</b></td></tr>
 * </table>
 *
 * <p>Implementations are thread-safe.
 */
public interface IdempotentExecution {
    /** Where the record commits relative to the effect. */
    enum Mode {
        /** The record commits in the application's database transaction, with the effect. */
        TRANSACTIONAL,
        /** A fast store in front; a jdbc row in the application's transaction decides. */
        BACKSTOP,
        /** The store alone, outside the application's transaction: a crash window after the effect. */
        STORE
    }

    /**
     * The mode of this execution.
     *
     * @return the mode; never null
     */
    Mode mode();

    /**
     * Runs {@code work} at most once per key (in effect: in the transactional modes, a run whose
     * transaction rolled back left nothing) and returns its result or the stored result of the run
     * that committed.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param type the result type, used to decode replays (a generic type where the codec binds it);
     *     not null
     * @param work the operation; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws E what {@code work} threw; in the transactional modes its transaction is rolled back
     * @throws NotRecordedException the work returned but its transaction was marked rollback-only:
     *     nothing committed and nothing is recorded
     * @throws io.dupguard.idempotency.PayloadMismatchException the key was used with another
     *     fingerprint
     * @throws io.dupguard.idempotency.RequestInFlightException a call with the key is in flight and
     *     the in-flight policy does not wait for it
     * @throws io.dupguard.StoreUnavailableException a store (or, in the transactional modes, the
     *     database) could not be reached; the work did not run
     */
    <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E;

    /**
     * Whether {@link #executeBatch} claims a batch in one round trip; otherwise batches are claimed
     * key by key through {@link #execute}.
     *
     * @return true if {@link #executeBatch} is supported
     */
    default boolean batches() {
        return false;
    }

    /**
     * Claims a batch of keys in one round trip, runs {@code work} on the claimed ones and records
     * what it reports ({@link io.dupguard.idempotency.Idempotency#executeBatch}); in the
     * transactional mode in one database transaction with the work's writes.
     *
     * @param entries the keys and fingerprints, distinct keys, at most {@link
     *     io.dupguard.idempotency.Idempotency#MAX_BATCH_SIZE}; not null, not empty
     * @param work the work on the claimed entries; not null
     * @return one result per entry, in order; never null
     * @throws Exception what the work threw (its done entries recorded, the others released; in the
     *     transactional mode the whole transaction rolled back)
     * @throws UnsupportedOperationException if {@link #batches()} is false
     */
    default java.util.List<io.dupguard.idempotency.BatchResult<Void>> executeBatch(
            java.util.List<io.dupguard.idempotency.BatchEntry> entries,
            io.dupguard.idempotency.BatchWork<Void, Exception> work)
            throws Exception {
        throw new UnsupportedOperationException(mode() + " mode claims batches key by key");
    }

    /**
     * One line for the start-up log: the mode and what it means for a crash.
     *
     * @return a description; never null
     */
    String describe();

    /**
     * The record in the store alone: claimed before the work, completed after it (mode {@link
     * Mode#STORE}).
     *
     * @param idempotency the executor on the store; not null
     * @return the execution
     */
    static IdempotentExecution store(Idempotency idempotency) {
        Objects.requireNonNull(idempotency, "idempotency");
        return new IdempotentExecution() {
            @Override
            public Mode mode() {
                return Mode.STORE;
            }

            @Override
            public <T, E extends Exception> Outcome<T> execute(
                    IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E {
                @SuppressWarnings("unchecked")
                Class<T> raw = (Class<T>) rawClass(type);
                return idempotency.execute(key, fingerprint, raw, work);
            }

            @Override
            public String describe() {
                return "store mode: the record completes in the idempotency store after the work returns,"
                        + " outside any database transaction of the application"
                        + (idempotency.config().awaitCompletion()
                                ? ""
                                : "; completions are not awaited: each is answered with the thread's next claim");
            }

            @Override
            public boolean batches() {
                return true;
            }

            @Override
            public java.util.List<io.dupguard.idempotency.BatchResult<Void>> executeBatch(
                    java.util.List<io.dupguard.idempotency.BatchEntry> entries,
                    io.dupguard.idempotency.BatchWork<Void, Exception> work)
                    throws Exception {
                return idempotency.executeBatch(entries, Void.class, work);
            }
        };
    }

    /**
     * The class of {@code type}, boxed.
     *
     * @param type a class or parameterized type
     * @return its raw class, primitives boxed ({@code void} as {@link Void})
     */
    private static Class<?> rawClass(Type type) {
        Class<?> c = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
        if (c == void.class) {
            return Void.class;
        }
        return c.isPrimitive()
                ? java.lang.invoke.MethodType.methodType(c).wrap().returnType()
                : c;
    }

    /** The work returned, but its transaction was marked rollback-only: nothing was committed or recorded. */
    final class NotRecordedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** The result the work returned before its transaction rolled back. */
        private final transient Object result;

        /**
         * @param key the operation's key
         * @param result what the work returned
         */
        public NotRecordedException(IdempotencyKey key, Object result) {
            super("the work of " + key + " returned, but its transaction was marked rollback-only (a nested"
                    + " @Transactional method failed?): nothing was committed and the key is not recorded");
            this.result = result;
        }

        /**
         * What the work returned.
         *
         * @return the result, or null
         */
        public Object result() {
            return result;
        }
    }
}
