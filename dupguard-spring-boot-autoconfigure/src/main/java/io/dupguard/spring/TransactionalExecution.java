package io.dupguard.spring;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The record commits with the effect: {@link IdempotentExecution.Mode#TRANSACTIONAL} and {@link
 * IdempotentExecution.Mode#BACKSTOP} on a Spring {@link PlatformTransactionManager}.
 *
 * <p>{@link #transactional}: the work runs in a transaction of the application's transaction manager
 * (propagation REQUIRED: it joins one already active), and the key's jdbc row is claimed first in
 * that transaction and completed in it ({@link SpringTransactionalIdempotency}). The application's
 * writes through the same DataSource ({@code JdbcTemplate}, JPA, {@code RetryLog.enqueue}) commit
 * with the record or roll back with it. A concurrent duplicate waits on the claim's row lock until
 * the first transaction ends, then replays its result (or, after a rollback, runs).
 *
 * <p>{@link #backstop}: the store in front (Redis) claims first, so concurrent duplicates are
 * rejected (or wait) without touching the database and finished keys replay from it; inside that
 * claim the work runs as in {@link #transactional} with the jdbc row as the backstop. When the front
 * lost the key (a crash after the commit left its claim in flight until its lease ended, a Redis
 * failover or eviction), the backstop row replays the committed result. When a transaction is
 * already active on the calling thread, the front is skipped: the front would complete before that
 * transaction commits, and could then replay a result whose effect rolled back.
 *
 * <p><b>Read-only transactions</b> ({@code @Transactional(readOnly = true)}, which read/write routing
 * sends to a replica) cannot hold a claim: the work then runs in a new read-write transaction
 * (REQUIRES_NEW), on the primary, with its record — the read-only one is suspended meanwhile.
 *
 * <p>Thread-safe.
 */
public final class TransactionalExecution implements IdempotentExecution {
    private final Mode mode;
    private final IdempotentExecution front;
    private final SpringTransactionalIdempotency rows;
    private final TransactionTemplate template;
    private final TransactionTemplate readWrite;

    private TransactionalExecution(
            Mode mode, Idempotency front, SpringTransactionalIdempotency rows, PlatformTransactionManager tm) {
        this.mode = mode;
        this.front = front == null ? null : IdempotentExecution.store(front);
        this.rows = Objects.requireNonNull(rows, "rows");
        this.template = new TransactionTemplate(Objects.requireNonNull(tm, "transactionManager"));
        this.template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRED);
        this.readWrite = new TransactionTemplate(tm);
        this.readWrite.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.readWrite.setReadOnly(false);
    }

    /**
     * The record in the application's transaction.
     *
     * @param rows the jdbc store joined to Spring transactions on the application's DataSource; not
     *     null
     * @param transactionManager the transaction manager of that DataSource; not null
     * @return the execution
     */
    public static TransactionalExecution transactional(
            SpringTransactionalIdempotency rows, PlatformTransactionManager transactionManager) {
        return new TransactionalExecution(Mode.TRANSACTIONAL, null, rows, transactionManager);
    }

    /**
     * A fast store in front, the jdbc row in the application's transaction behind it.
     *
     * @param front the executor on the fast store (its in-flight policy answers concurrent
     *     duplicates); not null
     * @param rows the jdbc store joined to Spring transactions on the application's DataSource; not
     *     null
     * @param transactionManager the transaction manager of that DataSource; not null
     * @return the execution
     */
    public static TransactionalExecution backstop(
            Idempotency front, SpringTransactionalIdempotency rows, PlatformTransactionManager transactionManager) {
        return new TransactionalExecution(
                Mode.BACKSTOP, Objects.requireNonNull(front, "front"), rows, transactionManager);
    }

    /**
     * Whether {@code transactionManager} binds connections of {@code dataSource}, so that a
     * transaction it begins covers the application's JDBC writes on that DataSource: a {@link
     * DataSourceTransactionManager} of it, or a manager exposing it through a public {@code
     * getDataSource()} (JPA's).
     *
     * @param transactionManager the application's transaction manager, or null
     * @param dataSource the DataSource of the jdbc store; not null
     * @return true if the transactional modes can run on this pair
     */
    public static boolean manages(PlatformTransactionManager transactionManager, DataSource dataSource) {
        if (transactionManager == null) {
            return false;
        }
        DataSource managed = null;
        if (transactionManager instanceof DataSourceTransactionManager d) {
            managed = d.getDataSource();
        } else {
            try {
                Method m = transactionManager.getClass().getMethod("getDataSource");
                if (DataSource.class.isAssignableFrom(m.getReturnType())) {
                    managed = (DataSource) m.invoke(transactionManager);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                return false;
            }
        }
        return unwrap(managed) == unwrap(dataSource) && managed != null;
    }

    private static DataSource unwrap(DataSource ds) {
        return ds instanceof TransactionAwareDataSourceProxy p ? p.getTargetDataSource() : ds;
    }

    @Override
    public Mode mode() {
        return mode;
    }

    @Override
    public String describe() {
        return mode == Mode.TRANSACTIONAL
                ? "transactional mode: the key's row is claimed and completed in the application's database"
                        + " transaction, so the record commits with the effect (a crash leaves both or neither)"
                : "backstop mode: the idempotency store rejects and replays fast; a row in the application's"
                        + " database transaction commits with the effect and decides after a crash";
    }

    @Override
    public <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E {
        if (mode == Mode.TRANSACTIONAL
                || (TransactionSynchronizationManager.isActualTransactionActive()
                        && !TransactionSynchronizationManager.isCurrentTransactionReadOnly())) {
            return waitingOutside(key, fingerprint, type, work);
        }
        boolean[] replayedBehind = {false};
        Outcome<T> outer = front.execute(key, fingerprint, type, () -> {
            Outcome<T> inner = inTransaction(key, fingerprint, type, work);
            replayedBehind[0] = inner.isReplay();
            return inner.value();
        });
        return replayedBehind[0] && !outer.isReplay() ? Outcome.replayed(outer.value()) : outer;
    }

    /** The transactional mode claims a batch in one statement in the transaction; backstop key by key. */
    @Override
    public boolean batches() {
        return mode == Mode.TRANSACTIONAL;
    }

    @Override
    public java.util.List<io.dupguard.idempotency.BatchResult<Void>> executeBatch(
            java.util.List<io.dupguard.idempotency.BatchEntry> entries,
            io.dupguard.idempotency.BatchWork<Void, Exception> work)
            throws Exception {
        if (!batches()) {
            return IdempotentExecution.super.executeBatch(entries, work);
        }
        TransactionTemplate t = template();
        try {
            return t.execute(status -> {
                try {
                    return rows.executeBatch(entries, Void.class, work);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new Checked(e);
                }
            });
        } catch (Checked c) {
            throw (Exception) c.getCause();
        } catch (CannotCreateTransactionException e) {
            throw new StoreUnavailableException(
                    "jdbc", "could not begin a transaction on the application's DataSource; nothing ran", e);
        }
    }

    /** A read-write transaction of its own inside a read-only one; otherwise join or begin one. */
    private TransactionTemplate template() {
        return TransactionSynchronizationManager.isActualTransactionActive()
                        && TransactionSynchronizationManager.isCurrentTransactionReadOnly()
                ? readWrite
                : template;
    }

    /** Carries a checked exception of the work through the transaction template. */
    private static final class Checked extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Checked(Exception cause) {
            super(cause);
        }
    }

    /**
     * {@link #inTransaction}; when this call begins the transaction and the key is in flight
     * elsewhere (claimed in autocommit), the transaction ends and the call waits outside it, as
     * the rows' in-flight policy says, then claims again. Inside a transaction of the caller's the
     * refusal propagates at once: the claim holds the row's lock, so the holder could not finish
     * while the caller waited.
     */
    private <T, E extends Exception> Outcome<T> waitingOutside(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E {
        boolean own = !TransactionSynchronizationManager.isActualTransactionActive()
                || TransactionSynchronizationManager.isCurrentTransactionReadOnly();
        java.time.Duration wait = rows.inFlightWait();
        if (!own || wait.isZero()) {
            return inTransaction(key, fingerprint, type, work);
        }
        long deadline = rows.clock().millis() + wait.toMillis();
        boolean[] ran = {false};
        IdempotentWork<T, E> marked = () -> {
            ran[0] = true;
            return work.call();
        };
        while (true) {
            try {
                return inTransaction(key, fingerprint, type, marked);
            } catch (io.dupguard.idempotency.RequestInFlightException e) {
                if (ran[0] || !key.equals(e.key())) {
                    throw e; // from the work (another key), not this call's claim
                }
                if (!rows.awaitSettled(key, deadline)) {
                    throw new io.dupguard.idempotency.RequestInFlightException(key, " after waiting " + wait);
                }
            }
        }
    }

    private <T, E extends Exception> Outcome<T> inTransaction(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E {
        TransactionTemplate t = template();
        try {
            return t.execute(status -> {
                Outcome<T> outcome;
                try {
                    outcome = rows.execute(key, fingerprint, type, work);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new Checked(e);
                }
                if (status.isRollbackOnly()) {
                    throw new NotRecordedException(key, outcome.value());
                }
                return outcome;
            });
        } catch (Checked c) {
            @SuppressWarnings("unchecked")
            E e = (E) c.getCause();
            throw e;
        } catch (CannotCreateTransactionException e) {
            throw new StoreUnavailableException(
                    "jdbc", "could not begin a transaction on the application's DataSource; nothing ran", e);
        }
    }
}
