package io.dupguard.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.memory.InMemoryRetryStore;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryInputTest {
    @Test
    void tasksRejectBadTypesKeysAndOversizedPayloads() {
        assertThatThrownBy(() -> NewTask.of(" ", "x", null))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("type must not be blank");
        assertThatThrownBy(() -> NewTask.of("t".repeat(65), "x", null))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("type must be at most 64 characters, was 65");
        assertThatThrownBy(() -> NewTask.of("t", "x", "a\nb"))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("dedupKey must not contain control characters");
        assertThatThrownBy(() -> NewTask.of("t", new byte[NewTask.MAX_PAYLOAD_BYTES + 1], null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload must be at most 1048576 bytes, was 1048577");
        assertThat(NewTask.of("t", new byte[NewTask.MAX_PAYLOAD_BYTES], null).taskKey())
                .hasSize(32);
    }

    @Test
    void configRejectsBadValuesNamingTheField() {
        assertThatThrownBy(() -> RetryConfig.custom().workers(0)).hasMessage("workers must be in [1, 1024], was 0");
        assertThatThrownBy(() -> RetryConfig.custom().pollers(0)).hasMessage("pollers must be in [1, 64], was 0");
        assertThatThrownBy(() -> RetryConfig.custom().batchSize(1001)).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> RetryConfig.custom().pollInterval(Duration.ZERO))
                .hasMessage("pollInterval must be positive, was PT0S");
        assertThatThrownBy(() -> RetryConfig.custom().lease(Duration.ofMillis(500)))
                .hasMessage("lease must be at least PT1S, was PT0.5S");
        assertThatThrownBy(() -> RetryConfig.custom().owner("")).hasMessage("owner must not be blank");
        assertThatThrownBy(() -> RetryConfig.custom().alertSink(null)).hasMessageContaining("alertSink");
        assertThatThrownBy(() -> new TaskPage(0, 0)).hasMessage("limit must be at least 1, was 0");
        assertThatThrownBy(() -> new TaskPage(-1, 10)).hasMessageContaining("afterId");
    }

    @Test
    void aLogRejectsUnknownTypesAndSecondHandlers() {
        RetryLog log =
                RetryLog.builder(new InMemoryRetryStore()).handler("a", t -> {}).build();
        assertThatThrownBy(() -> log.run("b", "x"))
                .isInstanceOf(UnknownTaskTypeException.class)
                .hasMessage("no handler registered for task type 'b'; registered: [a]");
        assertThatThrownBy(() -> log.enqueue("b", "x", null)).isInstanceOf(UnknownTaskTypeException.class);
        assertThatThrownBy(() -> RetryLog.builder(new InMemoryRetryStore())
                        .handler("a", t -> {})
                        .handler("a", t -> {}))
                .hasMessage("type 'a' already has a handler");
    }

    @Test
    void theDefaultClassifierBlocksOnlyNonRetryableFailures() {
        assertThat(RetryClassifier.DEFAULT.isRetryable(new IOException("x"))).isTrue();
        assertThat(RetryClassifier.DEFAULT.isRetryable(new RuntimeException(new NonRetryableException("no"))))
                .isFalse();
        RetryClassifier byType = RetryClassifier.notRetrying(IllegalArgumentException.class);
        assertThat(byType.isRetryable(new IllegalArgumentException())).isFalse();
        assertThat(byType.isRetryable(new IOException())).isTrue();
        RetryClassifier only = RetryClassifier.retryingOnly(IOException.class);
        assertThat(only.isRetryable(new IOException())).isTrue();
        assertThat(only.isRetryable(new IllegalStateException())).isFalse();
        assertThatThrownBy(() -> RetryClassifier.retryingOnly(String.class))
                .hasMessage("types must be Throwable classes, was java.lang.String");
    }
}
