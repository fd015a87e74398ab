package io.dupguard.spring.autoconfigure;

import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.memory.InMemoryRetryStore;
import io.dupguard.retry.AlertSink;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryListener;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetryStore;
import io.dupguard.spring.retry.RetryLogLifecycle;
import io.dupguard.spring.retry.RetryTaskHandler;
import io.dupguard.spring.retry.SpringTransactionalRetryStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The retry log, when the application defines {@link RetryTaskHandler} beans: a {@link RetryStore}
 * on the application's DataSource whose enqueue joins the caller's Spring transaction (in memory
 * with dupguard.store=memory), a {@link RetryLog} with every handler, the application's {@link
 * AlertSink} and {@link RetryListener} beans and the dupguard.retry.* settings, and a lifecycle bean
 * that runs its workers while the context runs. Off with dupguard.retry.enabled=false.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "dupguard.retry.enabled", matchIfMissing = true)
@ConditionalOnBean(RetryTaskHandler.class)
class DupguardRetryConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {"io.dupguard.jdbc.JdbcRetryStore", "org.springframework.jdbc.datasource.DataSourceUtils"})
    @ConditionalOnDupguardStore({DupguardProperties.StoreType.JDBC, DupguardProperties.StoreType.REDIS})
    @ConditionalOnSingleCandidate(DataSource.class)
    static class Jdbc {
        @Bean
        @ConditionalOnMissingBean(RetryStore.class)
        SpringTransactionalRetryStore dupguardRetryStore(
                DataSource ds,
                org.springframework.beans.factory.ObjectProvider<DataSource> dataSources,
                DupguardProperties p,
                org.springframework.beans.factory.ListableBeanFactory beans) {
            DupguardProperties.Retry r = p.getRetry();
            DataSource stores = JdbcStoreConfiguration.storeDataSource(dataSources, p, beans);
            JdbcRetryStore store = InvalidDupguardPropertyException.check(
                    "dupguard.retry.table", r.getTable(), () -> JdbcRetryStore.builder(stores)
                            .tableName(r.getTable())
                            .createSchemaIfMissing(p.getJdbc().isCreateSchema())
                            .listenForNotifications(r.isListenForNotifications())
                            .build());
            return new SpringTransactionalRetryStore(store, ds);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnDupguardStore(DupguardProperties.StoreType.MEMORY)
    static class Memory {
        @Bean
        @ConditionalOnMissingBean(RetryStore.class)
        InMemoryRetryStore dupguardRetryStore() {
            return new InMemoryRetryStore();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    RetryLog dupguardRetryLog(
            ObjectProvider<RetryStore> stores,
            ObjectProvider<RetryTaskHandler> handlers,
            ObjectProvider<AlertSink> alertSink,
            ObjectProvider<RetryListener> listeners,
            DupguardProperties p) {
        RetryStore store = stores.getIfUnique();
        if (store == null) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.retry.enabled",
                    true,
                    "the application defines RetryTaskHandler beans, but there is no single RetryStore: the"
                            + " retry log's table needs dupguard-jdbc and a single DataSource bean (add"
                            + " spring-boot-starter-jdbc and spring.datasource.*, or mark one @Primary), or define a"
                            + " RetryStore bean, or set dupguard.retry.enabled=false");
        }
        RetryLog.Builder b = RetryLog.builder(store).config(retryConfig(p.getRetry(), alertSink, listeners));
        handlers.orderedStream().forEach(h -> {
            try {
                b.handler(h.type(), h, h.options());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("RetryTaskHandler " + h + ": " + e.getMessage(), e);
            }
        });
        return b.build();
    }

    static RetryConfig retryConfig(
            DupguardProperties.Retry r, ObjectProvider<AlertSink> alertSink, ObjectProvider<RetryListener> listeners) {
        RetryConfig.Builder c = RetryConfig.custom();
        InvalidDupguardPropertyException.check(
                "dupguard.retry.workers", r.getWorkers(), () -> c.workers(r.getWorkers()));
        InvalidDupguardPropertyException.check(
                "dupguard.retry.pollers", r.getPollers(), () -> c.pollers(r.getPollers()));
        InvalidDupguardPropertyException.check(
                "dupguard.retry.batch-size", r.getBatchSize(), () -> c.batchSize(r.getBatchSize()));
        InvalidDupguardPropertyException.check(
                "dupguard.retry.poll-interval", r.getPollInterval(), () -> c.pollInterval(r.getPollInterval()));
        InvalidDupguardPropertyException.check("dupguard.retry.lease", r.getLease(), () -> c.lease(r.getLease()));
        InvalidDupguardPropertyException.check(
                "dupguard.retry.succeeded-retention",
                r.getSucceededRetention(),
                () -> c.succeededRetention(r.getSucceededRetention()));
        InvalidDupguardPropertyException.check(
                "dupguard.retry.shutdown-timeout",
                r.getShutdownTimeout(),
                () -> c.shutdownTimeout(r.getShutdownTimeout()));
        alertSink.ifUnique(c::alertSink);
        c.listener(CompositeRetryListener.of(listeners.orderedStream().toList()));
        return c.build();
    }

    @Bean
    @ConditionalOnMissingBean
    RetryLogLifecycle dupguardRetryLogLifecycle(RetryLog log, DupguardProperties p) {
        return new RetryLogLifecycle(log, p.getRetry().isAutoStartup());
    }
}
