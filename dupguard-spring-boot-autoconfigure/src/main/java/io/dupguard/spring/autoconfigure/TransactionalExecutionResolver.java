package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.ResultCodec;
import io.dupguard.spring.IdempotentExecution;
import io.dupguard.spring.SpringTransactionalIdempotency;
import io.dupguard.spring.TransactionalExecution;
import java.util.Locale;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The transactional modes on the application's DataSource: {@code rows} is the jdbc idempotency
 * store joined to Spring transactions — the store itself with dupguard.store=jdbc, the backstop table
 * with dupguard.store=redis.
 */
final class TransactionalExecutionResolver implements ExecutionResolver {
    private final Supplier<SpringTransactionalIdempotency> rowsProvider;
    private final boolean storeIsJdbc;
    private final ObjectProvider<PlatformTransactionManager> transactionManagers;

    TransactionalExecutionResolver(
            Supplier<SpringTransactionalIdempotency> rows,
            boolean storeIsJdbc,
            ObjectProvider<PlatformTransactionManager> transactionManagers) {
        this.rowsProvider = rows;
        this.storeIsJdbc = storeIsJdbc;
        this.transactionManagers = transactionManagers;
    }

    private PlatformTransactionManager manager(SpringTransactionalIdempotency rows) {
        PlatformTransactionManager tm = transactionManagers.getIfUnique();
        return rows != null && TransactionalExecution.manages(tm, rows.dataSource()) ? tm : null;
    }

    @Override
    public String unavailableReason() {
        PlatformTransactionManager tm = transactionManagers.getIfUnique();
        if (rowsProvider.get() == null) {
            return "the idempotency store is not dupguard's jdbc store on the application's DataSource";
        }
        return tm == null
                ? "the application has no single PlatformTransactionManager bean (spring-boot-starter-jdbc adds one)"
                : "the transaction manager " + tm.getClass().getName() + " does not manage the DataSource of"
                        + " dupguard's table (a DataSourceTransactionManager or JpaTransactionManager of it does)";
    }

    @Override
    public IdempotentExecution resolve(
            String property,
            DupguardProperties.RecordMode mode,
            Idempotency front,
            boolean basicCodec,
            boolean processedMessages) {
        SpringTransactionalIdempotency rows = rowsProvider.get();
        PlatformTransactionManager tm = manager(rows);
        DupguardProperties.RecordMode wanted = mode == DupguardProperties.RecordMode.AUTO
                ? (storeIsJdbc ? DupguardProperties.RecordMode.TRANSACTIONAL : DupguardProperties.RecordMode.BACKSTOP)
                : mode;
        if (wanted == DupguardProperties.RecordMode.TRANSACTIONAL && !storeIsJdbc) {
            throw new InvalidDupguardPropertyException(
                    property,
                    "transactional",
                    "needs dupguard.store=jdbc; with redis, backstop keeps the record in"
                            + " the application's transaction behind Redis");
        }
        if (wanted == DupguardProperties.RecordMode.BACKSTOP && storeIsJdbc) {
            throw new InvalidDupguardPropertyException(
                    property, "backstop", "is for a store other than jdbc; with dupguard.store=jdbc use transactional");
        }
        if (tm == null) {
            if (mode == DupguardProperties.RecordMode.AUTO) {
                return null;
            }
            throw new InvalidDupguardPropertyException(
                    property, mode.name().toLowerCase(Locale.ROOT), unavailableReason());
        }
        // the integration's own settings (its in-flight wait, an annotation's retention) hold for the
        // rows too: a key claimed in flight in autocommit elsewhere is waited for as the front waits
        SpringTransactionalIdempotency joined = rows.withConfig(
                basicCodec
                        ? IdempotencyConfig.from(front.config())
                                .codec(ResultCodec.basic())
                                .build()
                        : front.config());
        if (processedMessages && joined.hasProcessedMessages()) {
            joined = joined.withProcessedMessages();
        }
        return wanted == DupguardProperties.RecordMode.TRANSACTIONAL
                ? TransactionalExecution.transactional(joined, tm)
                : TransactionalExecution.backstop(front, joined, tm);
    }
}
