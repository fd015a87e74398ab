package io.dupguard.test;

import java.time.Duration;

/**
 * A real fault a backend's test can cause on demand: from now, for {@code duration}, the store's
 * operations fail (a refused connection, a paused server with a short client timeout); afterwards
 * the store is healthy again by itself. The contract tests use it for the renewal-blip and
 * lost-lease cases.
 */
@FunctionalInterface
public interface StoreOutage {
    /**
     * Starts the outage; returns at once (the outage ends by itself after {@code duration}).
     *
     * @param duration how long the store's operations fail; positive
     */
    void begin(Duration duration);

    /**
     * A store under test on its own connections, another machine's store on the same server, and
     * the outage that cuts the first off (and, for a paused server, the second too).
     */
    record Fixture<T>(T store, T otherMachine, StoreOutage outage) {}
}
