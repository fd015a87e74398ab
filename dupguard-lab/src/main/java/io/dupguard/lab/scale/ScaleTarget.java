package io.dupguard.lab.scale;

import io.dupguard.idempotency.IdempotencyStore;

/**
 * One store the retained-state study measures: a fresh, empty store; then the same store with
 * {@code keys} records copied from a real one; their storage; and the purge of them once expired.
 */
public interface ScaleTarget extends AutoCloseable {
    /** What the report calls it. */
    String label();

    /** The store, on a table or key space of its own, empty. */
    IdempotencyStore store();

    /**
     * Adds {@code keys} records, each a copy of the record of {@code template} (completed through
     * the store, so the layout is the store's own) under a random-looking key of 32 hex digits.
     * SQL rows are written past their retention (expired, not yet purged); Redis keys with a day's
     * TTL.
     */
    void fill(long keys, String template) throws Exception;

    /**
     * Lets the server finish the background work the bulk fill left — writing its dirty pages —
     * before the retained load is measured, as a table that grew over days would have. A service's
     * table is not measured minutes after ten million inserts; without this the retained phase
     * measures the server's checkpoint as much as the retained state.
     *
     * @return what was done and how long it took, for the report
     */
    default String settle() throws Exception {
        return "nothing to settle";
    }

    /** Bytes the store takes now, as the server reports them. */
    long storageBytes() throws Exception;

    /** How {@link #storageBytes()} is measured, for the report. */
    String storageMeasure();

    /**
     * Makes the filled records expire now where they are not already (Redis: {@code PEXPIRE}); SQL
     * rows were written expired.
     */
    void expireFilled(long keys) throws Exception;

    /**
     * Purges one step's worth of expired records (or waits for the server to): -1 while the purge
     * goes on, else how many of the filled records it left (0: all purged).
     */
    long purgeStep() throws Exception;

    /** How the purge works on this store, for the report. */
    String purgeMeasure();

    @Override
    void close();
}
