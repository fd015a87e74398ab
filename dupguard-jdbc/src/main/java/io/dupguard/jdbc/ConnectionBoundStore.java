package io.dupguard.jdbc;

import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * The store's statements on one caller-owned connection inside the caller's transaction: nothing is
 * committed here. Re-reads lock the row so they see the newest committed version even under
 * REPEATABLE READ. Single-threaded, like the connection.
 */
final class ConnectionBoundStore implements IdempotencyStore {
    private final JdbcIdempotencyStore store;
    private final Connection connection;

    ConnectionBoundStore(JdbcIdempotencyStore store, Connection connection) {
        this.store = store;
        this.connection = connection;
    }

    @FunctionalInterface
    private interface Op<R> {
        R run() throws SQLException;
    }

    private <R> R run(String operation, Op<R> op) {
        try {
            return op.run();
        } catch (SQLException e) {
            throw store.unavailable(operation, e);
        }
    }

    @Override
    public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        long millis = Checks.millis(Checks.positive(lease, "lease"));
        return run("claim " + key, () -> store.claim(connection, true, key, fingerprint, owner, millis));
    }

    @Override
    public void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        long millis = Checks.millis(Checks.positive(retention, "retention"));
        run("complete " + key, () -> {
            store.complete(connection, key, owner, status, payload, millis);
            return null;
        });
    }

    @Override
    public void release(IdempotencyKey key, String owner) {
        run("release " + key, () -> {
            store.release(connection, key, owner);
            return null;
        });
    }

    @Override
    public boolean renew(IdempotencyKey key, String owner, Duration lease) {
        long millis = Checks.millis(Checks.positive(lease, "lease"));
        return run("renew " + key, () -> store.renew(connection, key, owner, millis));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return run("find " + key, () -> store.find(connection, key));
    }
}
