package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcPreparedSubmissions;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcStoreBuilder;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.JdbcSubmitThrottle;
import io.dupguard.lock.LockProvider;
import io.dupguard.spring.SpringTransactionalIdempotency;
import io.dupguard.spring.metrics.MeteredBean;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import java.time.Duration;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** dupguard.store=jdbc: every store on the application's DataSource. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {OnDupguardStoreCondition.JDBC_STORE, "org.springframework.jdbc.datasource.DataSourceUtils"})
@ConditionalOnDupguardStore(DupguardProperties.StoreType.JDBC)
class JdbcStoreConfiguration {

    static DataSource dataSource(ObjectProvider<DataSource> dataSources) {
        DataSource ds = dataSources.getIfUnique();
        if (ds == null) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.store",
                    "jdbc",
                    "the application has no single DataSource bean (add spring-boot-starter-jdbc and"
                            + " spring.datasource.*, mark one DataSource @Primary, or choose another store)");
        }
        return ds;
    }

    /**
     * The DataSource of the stores: the bean named by dupguard.jdbc.data-source (the primary behind
     * read/write routing), otherwise the application's single DataSource. Transactions are still
     * joined on the application's DataSource, the one its transaction manager binds.
     */
    static DataSource storeDataSource(
            ObjectProvider<DataSource> dataSources, DupguardProperties p, ListableBeanFactory beans) {
        String name = p.getJdbc().getDataSource();
        if (name == null || name.isBlank()) {
            return dataSource(dataSources);
        }
        if (!beans.containsBean(name) || !beans.isTypeMatch(name, DataSource.class)) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.jdbc.data-source",
                    name,
                    "names no DataSource bean; DataSource beans: "
                            + java.util.Arrays.toString(beans.getBeanNamesForType(DataSource.class)));
        }
        return beans.getBean(name, DataSource.class);
    }

    /** Builds a store on {@code table}, naming {@code property} if the table name is refused. */
    private static <B extends JdbcStoreBuilder<B, T>, T> T build(
            String property, String table, DupguardProperties p, Supplier<B> builder) {
        return InvalidDupguardPropertyException.check(property, table, () -> builder.get()
                .tableName(table)
                .createSchemaIfMissing(p.getJdbc().isCreateSchema())
                .build());
    }

    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    JdbcIdempotencyStore dupguardIdempotencyStore(
            ObjectProvider<DataSource> ds, DupguardProperties p, ListableBeanFactory beans) {
        Duration retention = p.getIdempotency().getRetention();
        InvalidDupguardPropertyException.check(
                "dupguard.idempotency.retention", retention, () -> JdbcIdempotencyStore.builder(
                                storeDataSource(ds, p, beans))
                        .typicalRetention(retention));
        return build(
                "dupguard.jdbc.idempotency-table",
                p.getJdbc().getIdempotencyTable(),
                p,
                // The configured retention is what most completions use: the store then sets each row's
                // indexed purge time once, at the claim, and completion changes no indexed column.
                () -> JdbcIdempotencyStore.builder(storeDataSource(ds, p, beans))
                        .typicalRetention(p.getIdempotency().getRetention()));
    }

    /**
     * The idempotency store knows its database before the application serves. (The lock provider
     * detects on first use: behind read/write routing its first use inside a read-only transaction
     * is what refuses the standby clearly, ReadWriteRoutingIT.)
     */
    @Bean
    static SmartInitializingSingleton dupguardJdbcStoresReady(
            ObjectProvider<JdbcIdempotencyStore> idempotency, ObjectProvider<JdbcProcessedMessages> processed) {
        return JdbcStoresReady.detecting("JDBC idempotency store", () -> java.util.stream.Stream.concat(
                        idempotency.orderedStream().map(JdbcIdempotencyStore::dialect),
                        processed.orderedStream().map(JdbcProcessedMessages::dialect))
                .toList());
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    JdbcLockProvider dupguardLockProvider(
            ObjectProvider<DataSource> ds, DupguardProperties p, ListableBeanFactory beans) {
        return build(
                "dupguard.jdbc.lock-table",
                p.getJdbc().getLockTable(),
                p,
                () -> JdbcLockProvider.builder(storeDataSource(ds, p, beans)));
    }

    @Bean
    @ConditionalOnMissingBean(SubmissionTokens.class)
    SubmissionTokens dupguardSubmissionTokens(
            ObjectProvider<DataSource> ds, DupguardProperties p, ListableBeanFactory beans) {
        return build(
                "dupguard.jdbc.tokens-table",
                p.getJdbc().getTokensTable(),
                p,
                () -> JdbcSubmissionTokens.builder(storeDataSource(ds, p, beans)));
    }

    @Bean
    @ConditionalOnMissingBean(SubmitThrottle.class)
    SubmitThrottle dupguardSubmitThrottle(
            ObjectProvider<DataSource> ds, DupguardProperties p, ListableBeanFactory beans) {
        return build(
                "dupguard.jdbc.throttle-table",
                p.getJdbc().getThrottleTable(),
                p,
                () -> JdbcSubmitThrottle.builder(storeDataSource(ds, p, beans)));
    }

    @Bean
    @ConditionalOnMissingBean(PreparedSubmissions.class)
    JdbcPreparedSubmissions dupguardPreparedSubmissions(
            ObjectProvider<DataSource> ds, DupguardProperties p, ListableBeanFactory beans) {
        return build(
                "dupguard.jdbc.prepared-table",
                p.getJdbc().getPreparedTable(),
                p,
                () -> JdbcPreparedSubmissions.builder(storeDataSource(ds, p, beans)));
    }

    @Bean
    @ConditionalOnMissingBean
    JdbcProcessedMessages dupguardProcessedMessages(
            ObjectProvider<DataSource> ds, DupguardProperties p, ListableBeanFactory beans) {
        return processedMessages(storeDataSource(ds, p, beans), p);
    }

    /** The processed-messages table of {@code dupguard.jdbc.processed-*} on {@code ds}. */
    static JdbcProcessedMessages processedMessages(DataSource ds, DupguardProperties p) {
        return build(
                "dupguard.jdbc.processed-table",
                p.getJdbc().getProcessedTable(),
                p,
                () -> JdbcProcessedMessages.builder(ds).fingerprints(p.getJdbc().isProcessedFingerprints()));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(JdbcIdempotencyStore.class)
    SpringTransactionalIdempotency dupguardTransactionalIdempotency(
            JdbcIdempotencyStore store,
            ObjectProvider<JdbcProcessedMessages> processed,
            ObjectProvider<DataSource> dataSources,
            IdempotencyConfig config) {
        return new SpringTransactionalIdempotency(store, processed.getIfUnique(), dataSource(dataSources), config);
    }

    @Bean
    @ConditionalOnMissingBean(ExecutionResolver.class)
    ExecutionResolver dupguardExecutionResolver(
            ObjectProvider<SpringTransactionalIdempotency> rows,
            ObjectProvider<org.springframework.transaction.PlatformTransactionManager> transactionManagers) {
        return new TransactionalExecutionResolver(rows::getIfUnique, true, transactionManagers);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "dupguard.purge.enabled", matchIfMissing = true)
    DupguardPurger dupguardPurger(
            ObjectProvider<JdbcIdempotencyStore> idempotency,
            ObjectProvider<SubmissionTokens> tokens,
            ObjectProvider<JdbcPreparedSubmissions> prepared,
            ObjectProvider<JdbcProcessedMessages> processed,
            DupguardProperties p) {
        // the starter's tokens bean may be wrapped for metrics (MeteredSubmissionTokens)
        JdbcSubmissionTokens jdbcTokens = MeteredBean.unwrap(tokens.getIfAvailable(), JdbcSubmissionTokens.class);
        return new DupguardPurger(
                idempotency.getIfAvailable(),
                jdbcTokens,
                prepared.getIfAvailable(),
                processed.getIfUnique(),
                p.getPurge());
    }
}
