package io.dupguard.spring.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.console.Console;
import io.dupguard.spring.autoconfigure.DupguardAutoConfiguration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** The console is off by default, and on only with Spring Security and its module. */
class ConsoleAutoConfigurationTest {
    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DupguardAutoConfiguration.class,
                    DupguardConsoleConfiguration.class,
                    ConsoleModuleCheck.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

    @Test
    void isOffByDefault() {
        runner.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).doesNotHaveBean(Console.class);
        });
    }

    @Test
    void servesTheConsoleWhenEnabled() {
        runner.withPropertyValues("dupguard.console.enabled=true").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).hasSingleBean(Console.class);
            assertThat(ctx).hasBean("dupguardConsoleServlet");
        });
    }

    @Test
    void refusesToStartWithoutSpringSecurity() {
        runner.withPropertyValues("dupguard.console.enabled=true")
                .withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("dupguard.console.enabled")
                            .hasMessageContaining("the console requires Spring Security");
                });
    }

    @Test
    void refusesToStartWithoutTheConsoleModule() {
        runner.withPropertyValues("dupguard.console.enabled=true")
                .withClassLoader(new FilteredClassLoader("io.dupguard.console"))
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("dupguard-console");
                });
    }

    @Test
    void refusesABadPath() {
        runner.withPropertyValues("dupguard.console.enabled=true", "dupguard.console.path=/")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("dupguard.console.path");
                });
    }
}
