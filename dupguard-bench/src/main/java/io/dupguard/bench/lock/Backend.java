package io.dupguard.bench.lock;

import java.util.List;
import java.util.Map;

/**
 * One store with every implementation that runs on it, plus a way to count what an
 * implementation sends to the store (the audit). Closing it closes every connection it opened.
 */
interface Backend extends AutoCloseable {

    /** Heading of the store in the report. */
    String title();

    /** Server product and version, asked from the server. */
    String server();

    /** The measured implementations, in report order. */
    List<LockImpl> impls();

    /**
     * The implementation to audit in place of {@code measured}, wired to a counter of what reaches
     * the store: the measured instance itself when the counter sits on the server, or a twin on
     * its own counting pool. Closed after its audit.
     */
    Audited audit(LockImpl measured) throws Exception;

    /** An implementation wired to a counter. */
    interface Audited extends AutoCloseable {
        LockImpl impl();

        /** Starts counting from zero. */
        void start() throws Exception;

        /** Stops counting; the counts by request kind (e.g. "EVALSHA", "statements"). */
        Map<String, Long> stop() throws Exception;

        @Override
        default void close() {}
    }

    @Override
    void close();
}
