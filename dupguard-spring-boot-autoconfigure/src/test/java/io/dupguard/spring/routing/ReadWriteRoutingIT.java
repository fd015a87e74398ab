package io.dupguard.spring.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.spring.annotation.DistributedLock;
import io.dupguard.spring.annotation.Idempotent;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Read/write routing (K7): the application sends {@code @Transactional(readOnly = true)} to a real
 * PostgreSQL hot standby (127.0.0.1:5443, streaming from the primary on 5442; {@code
 * scripts/services} starts both), the rest to the primary. dupguard's statements still reach the
 * primary: its stores through {@code dupguard.jdbc.data-source}, and an {@code @Idempotent} method
 * called inside a read-only transaction in a read-write transaction of its own.
 */
class ReadWriteRoutingIT {
    static final String PRIMARY =
            System.getProperty("dupguard.pg.primary.url", "jdbc:postgresql://127.0.0.1:5442/test?user=postgres");
    static final String STANDBY =
            System.getProperty("dupguard.pg.standby.url", "jdbc:postgresql://127.0.0.1:5443/test?user=postgres");

    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_routing_effects_" + SUFFIX;
    static final String IDEM = "it_routing_idem_" + SUFFIX;
    static final String LOCKS = "it_routing_locks_" + SUFFIX;

    /** The usual read/write split: a routing DataSource behind a lazy proxy, keyed by the transaction's read-only flag. */
    @Configuration(proxyBeanMethods = false)
    static class Routing {
        @Bean(destroyMethod = "close")
        HikariDataSource primary() {
            HikariDataSource ds = new HikariDataSource();
            ds.setJdbcUrl(PRIMARY);
            ds.setMaximumPoolSize(4);
            return ds;
        }

        @Bean(destroyMethod = "close")
        HikariDataSource replica() {
            HikariDataSource ds = new HikariDataSource();
            ds.setJdbcUrl(STANDBY);
            ds.setMaximumPoolSize(4);
            return ds;
        }

        @Bean
        @Primary
        DataSource dataSource(HikariDataSource primary, HikariDataSource replica) {
            AbstractRoutingDataSource routing = new AbstractRoutingDataSource() {
                @Override
                protected Object determineCurrentLookupKey() {
                    return TransactionSynchronizationManager.isCurrentTransactionReadOnly() ? "replica" : "primary";
                }
            };
            routing.setTargetDataSources(Map.of("primary", primary, "replica", replica));
            routing.setDefaultTargetDataSource(primary);
            routing.afterPropertiesSet();
            return new LazyConnectionDataSourceProxy(routing);
        }

        @Bean
        Orders orders(JdbcTemplate jdbc) {
            return new Orders(jdbc);
        }

        @Bean
        Reports reports(Orders orders, JdbcTemplate jdbc) {
            return new Reports(orders, jdbc);
        }
    }

    /** Writes, once per key and under a lock. */
    public static class Orders {
        private final JdbcTemplate jdbc;

        public Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DistributedLock(name = "'order:' + #id")
        @Idempotent(scope = "orders", key = "#id")
        public String place(String id) {
            jdbc.update("insert into " + EFFECTS + " (k) values (?)", id);
            return "placed " + id;
        }
    }

    /** A read-only service method (routed to the standby) that places an order on the way. */
    public static class Reports {
        private final Orders orders;
        private final JdbcTemplate jdbc;

        public Reports(Orders orders, JdbcTemplate jdbc) {
            this.orders = orders;
            this.jdbc = jdbc;
        }

        @Transactional(readOnly = true)
        public String readOnStandbyThenPlace(String id) {
            Boolean standby = jdbc.queryForObject("select pg_is_in_recovery()", Boolean.class);
            assertThat(standby)
                    .as("the read-only transaction reads the standby")
                    .isTrue();
            return orders.place(id);
        }
    }

    private ApplicationContextRunner runner(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class,
                        io.dupguard.spring.autoconfigure.DupguardAutoConfiguration.class))
                .withUserConfiguration(Routing.class)
                .withPropertyValues(
                        "dupguard.jdbc.idempotency-table=" + IDEM,
                        "dupguard.jdbc.lock-table=" + LOCKS,
                        "dupguard.purge.enabled=false")
                .withPropertyValues(properties);
    }

    private static int onPrimary(JdbcTemplate primary, String sql, Object... args) {
        return primary.queryForObject(sql, Integer.class, args);
    }

    @Test
    void dupguardWritesReachThePrimaryFromInsideAReadOnlyTransaction() {
        runner("dupguard.jdbc.data-source=primary").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            JdbcTemplate primary = new JdbcTemplate(ctx.getBean("primary", DataSource.class));
            primary.execute("create table " + EFFECTS + " (id serial primary key, k text not null)");
            try {
                Reports reports = ctx.getBean(Reports.class);
                String id = "o-" + SUFFIX;
                assertThat(reports.readOnStandbyThenPlace(id)).isEqualTo("placed " + id);
                assertThat(reports.readOnStandbyThenPlace(id)).isEqualTo("placed " + id);
                assertThat(onPrimary(primary, "select count(*) from " + EFFECTS + " where k = ?", id))
                        .isEqualTo(1);
                assertThat(onPrimary(primary, "select count(*) from " + IDEM + " where idem_key = ?", id))
                        .isEqualTo(1);
                // and the standby catches up with what the primary committed
                JdbcTemplate standby = new JdbcTemplate(ctx.getBean("replica", DataSource.class));
                Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(10))
                        .ignoreException(org.springframework.jdbc.BadSqlGrammarException.class) // not replayed yet
                        .until(() -> standby.queryForObject(
                                        "select count(*) from " + EFFECTS + " where k = ?", Integer.class, id)
                                == 1);
            } finally {
                primary.execute("drop table if exists " + EFFECTS);
                primary.execute("drop table if exists " + IDEM);
                primary.execute("drop table if exists " + LOCKS);
            }
        });
    }

    @Test
    void withoutNamingThePrimaryTheLockInsideAReadOnlyTransactionIsRefusedClearly() {
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed();
            JdbcTemplate primary = new JdbcTemplate(ctx.getBean("primary", DataSource.class));
            primary.execute("create table " + EFFECTS + " (id serial primary key, k text not null)");
            try {
                // the lock provider's own connection is routed by the read-only flag: to the standby
                assertThatThrownBy(() -> ctx.getBean(Reports.class).readOnStandbyThenPlace("r-" + SUFFIX))
                        .hasStackTraceContaining("read-only");
                assertThat(onPrimary(primary, "select count(*) from " + EFFECTS))
                        .isZero();
            } finally {
                primary.execute("drop table if exists " + EFFECTS);
                primary.execute("drop table if exists " + IDEM);
                primary.execute("drop table if exists " + LOCKS);
            }
        });
    }

    @Test
    void aDataSourceNameThatIsNoDataSourceFailsStartUpNamingTheProperty() {
        runner("dupguard.jdbc.data-source=nope").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("dupguard.jdbc.data-source")
                    .hasMessageContaining("primary");
        });
    }
}
