package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.spring.IdempotentExecution;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** Which mode the HTTP filter runs in ({@code dupguard.http.mode}), and what start-up says about it. */
@ExtendWith(OutputCaptureExtension.class)
class RecordModeAutoConfigurationTest {
    private final WebApplicationContextRunner runner =
            new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(DupguardAutoConfiguration.class));

    private static String h2() {
        return "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    private static IdempotentExecution.Mode filterMode(org.springframework.context.ApplicationContext ctx) {
        @SuppressWarnings("unchecked")
        FilterRegistrationBean<IdempotencyKeyFilter> r =
                ctx.getBean("dupguardIdempotencyKeyFilter", FilterRegistrationBean.class);
        return r.getFilter().execution().mode();
    }

    private WebApplicationContextRunner withJdbcAndTransactions() {
        return runner.withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class))
                .withPropertyValues(h2());
    }

    @Test
    void theJdbcStoreWithItsTransactionManagerIsTransactionalByDefaultAndSaysSo(CapturedOutput output) {
        withJdbcAndTransactions().run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(filterMode(ctx)).isEqualTo(IdempotentExecution.Mode.TRANSACTIONAL);
            assertThat(output)
                    .contains("dupguard: the HTTP Idempotency-Key filter runs in transactional mode")
                    .contains("dupguard: the AMQP listener dedup runs in transactional mode")
                    .contains("dupguard: the Kafka listener dedup runs in transactional mode");
        });
    }

    @Test
    void aListenerInStoreModeThatDoesNotAwaitCompletionsSaysSoAndTheOtherDoesNot(CapturedOutput output) {
        runner.withPropertyValues(
                        "dupguard.store=memory",
                        "dupguard.kafka.mode=store",
                        "dupguard.kafka.await-completion=false",
                        "dupguard.amqp.mode=store")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    String kafka = output.getOut()
                            .lines()
                            .filter(l -> l.contains("the Kafka listener dedup runs in store mode"))
                            .findFirst()
                            .orElseThrow();
                    String amqp = output.getOut()
                            .lines()
                            .filter(l -> l.contains("the AMQP listener dedup runs in store mode"))
                            .findFirst()
                            .orElseThrow();
                    assertThat(kafka).contains("completions are not awaited");
                    assertThat(amqp).doesNotContain("not awaited");
                });
    }

    @Test
    void withoutATransactionManagerTheFilterFallsBackToStoreModeWithAWarningNamingTheWindow(CapturedOutput output) {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2())
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(filterMode(ctx)).isEqualTo(IdempotentExecution.Mode.STORE);
                    assertThat(output)
                            .contains("WARN")
                            .contains("runs in store mode")
                            .contains("a retry then runs the operation again")
                            .contains("no single PlatformTransactionManager");
                });
    }

    @Test
    void askingForTransactionalWithoutATransactionManagerFailsStartUpNamingTheProperty() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2(), "dupguard.http.mode=transactional")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("dupguard.http.mode")
                            .hasMessageContaining("PlatformTransactionManager");
                });
    }

    @Test
    void storeModeIsAChoice(CapturedOutput output) {
        withJdbcAndTransactions().withPropertyValues("dupguard.http.mode=store").run(ctx -> {
            assertThat(filterMode(ctx)).isEqualTo(IdempotentExecution.Mode.STORE);
            assertThat(output).contains("runs in store mode").contains("(dupguard.http.mode=store)");
        });
    }

    @Test
    void backstopNeedsAStoreOtherThanJdbc() {
        withJdbcAndTransactions()
                .withPropertyValues("dupguard.http.mode=backstop")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("dupguard.http.mode")
                            .hasMessageContaining("use transactional");
                });
    }

    @Test
    void theMemoryStoreRunsInStoreMode() {
        runner.run(ctx -> assertThat(filterMode(ctx)).isEqualTo(IdempotentExecution.Mode.STORE));
    }

    @Test
    void theKafkaKeyHeaderMustBeNamedWithKeyHeader() {
        withJdbcAndTransactions()
                .withPropertyValues("dupguard.kafka.key=header", "dupguard.kafka.key-header= ")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("dupguard.kafka.key-header");
                });
    }

    @Test
    void releaseStatusesMustBeClientErrors() {
        withJdbcAndTransactions()
                .withPropertyValues("dupguard.http.release-statuses=400,500")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("dupguard.http.release-statuses")
                            .hasMessageContaining("4xx");
                });
    }
}
