package io.dupguard.spring.autoconfigure;

import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Detects the database of the starter's JDBC stores (and creates their tables, if configured) at
 * start-up, before the application serves. Left to its first use, a store does it on a pooled
 * connection of its own while the request, listener or transaction using it already holds one: a
 * burst of first requests on a small pool then waits for the pool's connection timeout. A database
 * that cannot be reached at start-up leaves it to the first use, with a warning.
 */
final class JdbcStoresReady {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcStoresReady.class);

    private JdbcStoresReady() {}

    /** Runs each detection once every singleton exists; {@code what} names them in the warning. */
    static SmartInitializingSingleton detecting(String what, Supplier<?>... detections) {
        return () -> {
            for (Supplier<?> detection : detections) {
                try {
                    detection.get();
                } catch (RuntimeException e) {
                    LOG.warn(
                            "dupguard: the {} could not reach its database at start-up ({}); it detects the"
                                    + " database on first use, on a pooled connection of its own",
                            what,
                            e.toString());
                }
            }
        };
    }
}
