package io.dupguard.bench;

/**
 * One implementation under test: a way to run an operation at most once per key on one store.
 * Called concurrently from all client threads; must be thread-safe.
 */
interface BenchImpl {

    /** What a row is compared against. */
    enum Role {
        /**
         * The leanest correct design an expert would write by hand for this store (on SQL stores
         * its own minimal table): the ceiling the targets are measured against.
         */
        CEILING,
        /** Hand-written statements on dupguard's own table: measures the library's client-side overhead only. */
        CEILING_SAME_TABLE,
        /** dupguard's {@code Idempotency.execute} (autocommit on SQL stores). */
        DUPGUARD,
        /**
         * The transactional mode's lean ceiling: dedup by hand inside the caller's transaction with
         * its own minimal table, in the steps of dupguard's default claim.
         */
        CEILING_TX,
        /** The same, on dupguard's own table: the transactional mode's client-side overhead only. */
        CEILING_TX_SAME_TABLE,
        /** dupguard's {@code JdbcTransactionalIdempotency.executeInTransaction}: one commit per call. */
        DUPGUARD_TX,
        /** Apache Camel's JdbcMessageIdRepository: the peer of the transactional mode. */
        CAMEL,
        /** Extra dupguard rows for diagnosis; no target. */
        DIAGNOSTIC
    }

    /** Row label in the report. */
    String name();

    Role role();

    /** One line on what a call does (statements, round trips), for the report. */
    String description();

    /**
     * One idempotent call on {@code key}. The work is trivial: it produces {@code "ok-" + seq}.
     *
     * @return true if the work ran in this call, false if a stored result was replayed
     */
    boolean call(String key, long seq) throws Exception;

    /** What one client thread calls; made on that thread when a run starts. */
    interface Client {
        /** See {@link BenchImpl#call}. Timed. */
        boolean call(String key, long seq) throws Exception;

        /**
         * Housekeeping between calls, counted in throughput but not timed.
         *
         * @return true if the client dropped every record it held, so earlier keys are no longer duplicates
         */
        default boolean afterCall() {
            return false;
        }
    }

    /** A client for one thread; by default every thread shares this implementation's {@link #call}. */
    default Client newClient() {
        return this::call;
    }

    /** Removes what earlier runs stored, so that tables and memory do not grow run after run. Not timed. */
    void reset() throws Exception;

    /**
     * Whether a call on a key whose first request is still in flight returns (false: not run here)
     * instead of throwing — the rows measured with {@link Workload#DUP50_RACING}.
     */
    default boolean answersInFlight() {
        return false;
    }

    /** False for a row that stores nothing and so cannot tell a duplicate (its outcomes are not checked). */
    default boolean tellsDuplicates() {
        return true;
    }
}
