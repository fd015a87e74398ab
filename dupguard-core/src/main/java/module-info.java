/**
 * dupguard core: the user API and the backend SPI of every feature, and the in-memory backends.
 *
 * <p>Exported: the API packages ({@code io.dupguard}, {@code .idempotency}, {@code .lock}, {@code
 * .retry}, {@code .state}, {@code .token}), the SPI package {@code io.dupguard.lock.spi} and the
 * in-memory backends ({@code io.dupguard.memory}). {@code io.dupguard.internal} is shared with
 * dupguard's own backend modules only and may change in any release (docs/api.md).
 */
module io.dupguard.core {
    requires transitive java.sql;
    requires org.slf4j;

    exports io.dupguard;
    exports io.dupguard.idempotency;
    exports io.dupguard.lock;
    exports io.dupguard.lock.spi;
    exports io.dupguard.memory;
    exports io.dupguard.retry;
    exports io.dupguard.state;
    exports io.dupguard.token;
    exports io.dupguard.internal to
            io.dupguard.jdbc,
            io.dupguard.redis,
            io.dupguard.zookeeper;
}
