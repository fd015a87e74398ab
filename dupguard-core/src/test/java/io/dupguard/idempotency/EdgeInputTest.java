package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.lock.LockOptions;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/** Keys and durations at and beyond the edges: a clear error naming the field and the limit. */
class EdgeInputTest {

    @Test
    void loneSurrogatesInKeysAndScopesAreRejected() {
        for (String bad : new String[] {"k\uD800", "k\uDBFF", "\uDC00k", "a\uDC00\uD800b"}) {
            assertThatThrownBy(() -> IdempotencyKey.of("payments", bad))
                    .isInstanceOf(InvalidIdentifierException.class)
                    .hasMessageContaining("idempotency key")
                    .hasMessageContaining("lone surrogate");
        }
        assertThat(IdempotencyKey.of("payments", "k\uD83D\uDE00").key()).isEqualTo("k\uD83D\uDE00");
        assertThatThrownBy(() -> LockOptions.custom().owner("job\uD800"))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("owner");
    }

    @Test
    void malformedUtf16ResultsRoundTripExactly() {
        ResultCodec codec = ResultCodec.basic();
        for (String s : new String[] {"k\uD800", "\uDBFFx\uDC00", "plain", "k\uD83D\uDE00", ""}) {
            assertThat(codec.decode(codec.encode(s), String.class)).isEqualTo(s);
        }
        // Well-formed strings keep the UTF-8 form earlier versions stored.
        assertThat(codec.encode("é")).containsExactly(1, 0xC3 - 256, 0xA9 - 256);
    }

    @Test
    void retentionAndLeaseAreBoundedNamingTheLimit() {
        assertThatThrownBy(() -> IdempotencyConfig.custom().retention(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retention")
                .hasMessageContaining("100 years");
        assertThatThrownBy(() -> IdempotencyConfig.custom().retention(Duration.ofMillis(Long.MAX_VALUE)))
                .hasMessageContaining("retention");
        assertThatThrownBy(() -> IdempotencyConfig.custom().retention(Duration.ofDays(365L * 300)))
                .hasMessageContaining("retention");
        assertThatThrownBy(() -> IdempotencyConfig.custom().retention(Duration.ofNanos(1)))
                .hasMessageContaining("retention")
                .hasMessageContaining("PT0.001S");
        assertThat(IdempotencyConfig.custom()
                        .retention(IdempotencyConfig.MAX_DURATION)
                        .build()
                        .retention())
                .isEqualTo(Duration.ofDays(36_500));
    }

    @Test
    void renewedLeaseMustBeLongEnoughForTheWatchdog() {
        assertThatThrownBy(() -> IdempotencyConfig.custom()
                        .inFlightLease(Duration.ofMillis(10))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("inFlightLease")
                .hasMessageContaining(IdempotencyConfig.MIN_RENEWED_LEASE.toString())
                .hasMessageContaining("renewLease");
        assertThat(IdempotencyConfig.custom()
                        .inFlightLease(Duration.ofMillis(10))
                        .renewLease(false)
                        .build()
                        .inFlightLease())
                .isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void waitsAreBounded() {
        assertThatThrownBy(() -> InFlightPolicy.waitUpTo(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait")
                .hasMessageContaining("100 years");
        assertThat(InFlightPolicy.waitUpTo(IdempotencyConfig.MAX_DURATION).waits())
                .isTrue();
        assertThatThrownBy(() -> LockOptions.custom().waitTime(ChronoUnit.FOREVER.getDuration()))
                .hasMessageContaining("waitTime");
    }
}
