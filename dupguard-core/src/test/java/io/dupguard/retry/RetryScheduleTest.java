package io.dupguard.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {
    @Test
    void theDefaultIsTheSeedsSteps() {
        RetrySchedule s = RetrySchedule.DEFAULT;
        assertThat(s.delayAfter(1)).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.delayAfter(6)).isEqualTo(Duration.ofHours(2));
        assertThat(s.maxAttempts()).isEqualTo(7);
    }

    @Test
    void theLastStepRepeatsWhenMoreAttemptsAreAllowed() {
        RetrySchedule s = RetrySchedule.steppedBuilder()
                .steps(Duration.ofSeconds(1), Duration.ofSeconds(5))
                .maxAttempts(5)
                .build();
        assertThat(s.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.delayAfter(4)).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.maxAttempts()).isEqualTo(5);
    }

    @Test
    void exponentialPausesGrowUpToTheCapAndJitterOnlyShortensThem() {
        RetrySchedule s = RetrySchedule.exponential()
                .initial(Duration.ofSeconds(1))
                .multiplier(3)
                .cap(Duration.ofSeconds(20))
                .jitter(0.5)
                .maxAttempts(8)
                .build();
        for (int i = 0; i < 200; i++) {
            assertThat(s.delayAfter(1)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));
            assertThat(s.delayAfter(3)).isBetween(Duration.ofMillis(4500), Duration.ofSeconds(9));
            assertThat(s.delayAfter(30)).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(20));
        }
        RetrySchedule exact = RetrySchedule.exponential()
                .jitter(0)
                .initial(Duration.ofMillis(100))
                .build();
        assertThat(exact.delayAfter(4)).isEqualTo(Duration.ofMillis(800));
        assertThat(exact.maxAttempts()).isEqualTo(ExponentialSchedule.DEFAULT_MAX_ATTEMPTS);
    }

    @Test
    void badValuesAreRejectedNamingTheField() {
        assertThatThrownBy(() -> RetrySchedule.stepped()).hasMessageContaining("steps");
        assertThatThrownBy(() -> RetrySchedule.stepped(Duration.ofSeconds(1), Duration.ZERO))
                .hasMessageContaining("steps[1] must be positive");
        assertThatThrownBy(() -> RetrySchedule.steppedBuilder().build()).hasMessageContaining("steps must be set");
        assertThatThrownBy(() -> RetrySchedule.steppedBuilder().maxAttempts(0))
                .hasMessageContaining("maxAttempts must be at least 1");
        assertThatThrownBy(() -> RetrySchedule.exponential().initial(Duration.ofSeconds(-1)))
                .hasMessageContaining("initial must be positive");
        assertThatThrownBy(() -> RetrySchedule.exponential().multiplier(0.5))
                .hasMessageContaining("multiplier must be a finite number >= 1.0, was 0.5");
        assertThatThrownBy(() -> RetrySchedule.exponential().multiplier(Double.NaN))
                .hasMessageContaining("multiplier");
        assertThatThrownBy(() -> RetrySchedule.exponential().jitter(1.0))
                .hasMessageContaining("jitter must be in [0, 1)");
        assertThatThrownBy(() -> RetrySchedule.exponential()
                        .initial(Duration.ofMinutes(2))
                        .cap(Duration.ofMinutes(1))
                        .build())
                .hasMessageContaining("cap must not be shorter than initial");
        assertThatThrownBy(() -> RetrySchedule.DEFAULT.delayAfter(0)).hasMessageContaining("failedAttempt");
    }
}
