package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A bad dupguard.* value stops a real Boot application with a report naming the property. */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTest {
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @Test
    void theFailureAnalyzerNamesThePropertyAndTheRule(CapturedOutput output) {
        SpringApplication app = new SpringApplication(App.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> app.run(
                        "--dupguard.store=memory",
                        "--dupguard.idempotency.retention=0s",
                        "--spring.autoconfigure.exclude="
                                + "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"))
                .hasRootCauseInstanceOf(IllegalArgumentException.class);
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains(
                        "Invalid value 'PT0S' for property dupguard.idempotency.retention: retention must be positive")
                .contains("Change dupguard.idempotency.retention");
    }
}
