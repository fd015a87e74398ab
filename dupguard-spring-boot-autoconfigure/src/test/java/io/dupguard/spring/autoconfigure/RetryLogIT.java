package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.retry.Enqueued;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.TaskState;
import io.dupguard.spring.retry.RetryLogLifecycle;
import io.dupguard.spring.retry.RetryTaskHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The auto-configured retry log on the application's PostgreSQL DataSource: an enqueue joins the
 * caller's Spring transaction (rolled back with it, run after its commit), and the workers run with
 * the context.
 */
class RetryLogIT {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String table = "it_retry_" + suffix;
    private final String orders = "it_orders_" + suffix;

    /** Payloads the handler ran with, in order. */
    static final Queue<String> HANDLED = new ConcurrentLinkedQueue<>();

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        RetryTaskHandler notifyOrder() {
            return RetryTaskHandler.of("order.notify", task -> HANDLED.add(task.payloadText()));
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class,
                        DupguardAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues(
                        "spring.datasource.url=" + PG,
                        "dupguard.retry.table=" + table,
                        "dupguard.retry.poll-interval=200ms",
                        "dupguard.purge.enabled=false");
    }

    /** Tasks in the table, counted on a connection of its own (sees committed rows only). */
    private static int committedTasks(String table, String payload) throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "select count(*) from " + table + " where convert_from(payload, 'UTF8') = '" + payload + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void anEnqueueJoinsTheCallersTransactionSoARollbackRemovesItAndACommitRunsItOnce() {
        HANDLED.clear();
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed();
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            TransactionTemplate tx = ctx.getBean(TransactionTemplate.class);
            RetryLog retries = ctx.getBean(RetryLog.class);
            jdbc.execute("create table " + orders + " (id text primary key)");
            try {
                String rolledBack = "rolled-back-" + suffix;
                assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                            jdbc.update("insert into " + orders + " values (?)", rolledBack);
                            retries.enqueue("order.notify", rolledBack, "order-" + rolledBack);
                            throw new IllegalStateException("the order fails after the enqueue");
                        }))
                        .hasMessage("the order fails after the enqueue");
                assertThat(committedTasks(table, rolledBack)).isZero();

                String committed = "committed-" + suffix;
                Enqueued e = tx.execute(status -> {
                    jdbc.update("insert into " + orders + " values (?)", committed);
                    Enqueued in = retries.enqueue("order.notify", committed, "order-" + committed);
                    try {
                        // inside the transaction: the caller's own connection sees the task, nobody else does
                        assertThat(jdbc.queryForObject("select count(*) from " + table, Integer.class))
                                .isEqualTo(1);
                        assertThat(committedTasks(table, committed)).isZero();
                    } catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                    return in;
                });
                assertThat(e.created()).isTrue();
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> retries.status(e.id())
                        .map(t -> t.state() == TaskState.SUCCEEDED)
                        .orElse(false));
                assertThat(List.copyOf(HANDLED)).containsExactly(committed);
                assertThat(jdbc.queryForObject("select count(*) from " + table, Integer.class))
                        .isEqualTo(1);

                // the starter's meters and health see the retry log
                MeterRegistry meters = ctx.getBean(MeterRegistry.class);
                assertThat(meters.get("dupguard.retry.tasks")
                                .tag("outcome", "succeeded")
                                .counter()
                                .count())
                        .isEqualTo(1.0);
                HealthIndicator health =
                        (HealthIndicator) ctx.getBean("dupguardHealthContributor", CompositeHealthContributor.class)
                                .getContributor("retryStore");
                assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                // without a transaction the enqueue commits on its own
                String alone = "alone-" + suffix;
                retries.enqueue("order.notify", alone, null);
                assertThat(committedTasks(table, alone)).isEqualTo(1);
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.contains(alone));
            } finally {
                jdbc.execute("drop table " + orders);
            }
            RetryLogLifecycle workers = ctx.getBean(RetryLogLifecycle.class);
            assertThat(workers.isRunning()).isTrue();
            ctx.close();
            assertThat(workers.isRunning()).isFalse();
            try (Connection c = DriverManager.getConnection(PG);
                    Statement s = c.createStatement()) {
                s.execute("drop table " + table);
            }
        });
    }
}
