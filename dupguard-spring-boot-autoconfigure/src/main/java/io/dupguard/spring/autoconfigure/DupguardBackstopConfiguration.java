package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.spring.SpringTransactionalIdempotency;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * dupguard.store=redis in an application with a DataSource: Redis for speed, the database for truth.
 * The integrations in backstop mode claim in Redis first and then write the key's row
 * of the jdbc idempotency table ({@code dupguard.jdbc.idempotency-table}) in the application's
 * transaction, with its writes; that row decides after a crash or a Redis failover. The table is
 * created on first use (dupguard.jdbc.create-schema) and purged like the jdbc store's.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(
        name = {
            OnDupguardStoreCondition.JDBC_STORE,
            "org.springframework.jdbc.datasource.DataSourceUtils",
            "org.springframework.transaction.PlatformTransactionManager"
        })
@ConditionalOnDupguardStore(DupguardProperties.StoreType.REDIS)
@ConditionalOnSingleCandidate(DataSource.class)
class DupguardBackstopConfiguration {

    /** The backstop's rows, joined to Spring transactions; not an {@code IdempotencyStore} bean. */
    static final class Backstop {
        final JdbcIdempotencyStore store;
        final JdbcProcessedMessages processed;
        final SpringTransactionalIdempotency rows;

        Backstop(JdbcIdempotencyStore store, JdbcProcessedMessages processed, SpringTransactionalIdempotency rows) {
            this.store = store;
            this.processed = processed;
            this.rows = rows;
        }
    }

    @Bean
    Backstop dupguardBackstop(
            DataSource ds,
            ObjectProvider<DataSource> dataSources,
            DupguardProperties p,
            IdempotencyConfig config,
            org.springframework.beans.factory.ListableBeanFactory beans) {
        DataSource stores = JdbcStoreConfiguration.storeDataSource(dataSources, p, beans);
        JdbcIdempotencyStore store = InvalidDupguardPropertyException.check(
                "dupguard.jdbc.idempotency-table",
                p.getJdbc().getIdempotencyTable(),
                () -> JdbcIdempotencyStore.builder(stores)
                        .typicalRetention(p.getIdempotency().getRetention())
                        .tableName(p.getJdbc().getIdempotencyTable())
                        .createSchemaIfMissing(p.getJdbc().isCreateSchema())
                        .build());
        JdbcProcessedMessages processed = JdbcStoreConfiguration.processedMessages(stores, p);
        return new Backstop(store, processed, new SpringTransactionalIdempotency(store, processed, ds, config));
    }

    /** The backstop's table is known before the application serves (see {@link JdbcStoresReady}). */
    @Bean
    static SmartInitializingSingleton dupguardBackstopReady(ObjectProvider<Backstop> backstop) {
        return JdbcStoresReady.detecting("backstop's JDBC idempotency store", () -> backstop.orderedStream()
                .flatMap(b -> java.util.stream.Stream.of(b.store.dialect(), b.processed.dialect()))
                .toList());
    }

    @Bean
    @ConditionalOnMissingBean(ExecutionResolver.class)
    ExecutionResolver dupguardExecutionResolver(
            ObjectProvider<Backstop> backstop, ObjectProvider<PlatformTransactionManager> transactionManagers) {
        return new TransactionalExecutionResolver(
                () -> {
                    Backstop b = backstop.getIfUnique();
                    return b == null ? null : b.rows;
                },
                false,
                transactionManagers);
    }

    @Bean
    @ConditionalOnMissingBean(name = "dupguardBackstopPurger")
    @ConditionalOnProperty(name = "dupguard.purge.enabled", matchIfMissing = true)
    DupguardPurger dupguardBackstopPurger(Backstop backstop, DupguardProperties p) {
        return new DupguardPurger(backstop.store, null, null, backstop.processed, p.getPurge());
    }
}
