package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.memory.InMemoryIdempotencyStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {

    @Test
    void defaultsAreDocumentedConstants() {
        IdempotencyConfig c = IdempotencyConfig.ofDefaults();
        assertThat(c.inFlightLease()).isEqualTo(IdempotencyConfig.DEFAULT_IN_FLIGHT_LEASE);
        assertThat(c.retention()).isEqualTo(IdempotencyConfig.DEFAULT_RETENTION);
        assertThat(c.inFlightPolicy().waits()).isFalse();
        assertThat(c.renewLease()).isTrue();
    }

    @Test
    void rejectsBadDurationsNamingTheField() {
        assertThatThrownBy(() -> IdempotencyConfig.custom().inFlightLease(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("inFlightLease");
        assertThatThrownBy(() -> IdempotencyConfig.custom().retention(Duration.ofSeconds(-1)))
                .hasMessageContaining("retention");
        assertThatThrownBy(() -> InFlightPolicy.waitUpTo(Duration.ZERO)).hasMessageContaining("maxWait");
        assertThatThrownBy(() -> IdempotencyConfig.custom().localCacheSize(-1)).hasMessageContaining("localCacheSize");
        assertThatThrownBy(() -> IdempotencyConfig.custom().inFlightLease(null)).hasMessageContaining("inFlightLease");
    }

    @Test
    void fromCopiesABase() {
        IdempotencyConfig base =
                IdempotencyConfig.custom().retention(Duration.ofMinutes(5)).build();
        assertThat(IdempotencyConfig.from(base).build().retention()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void basicCodecRoundTripsSimpleValues() {
        ResultCodec codec = ResultCodec.basic();
        for (Object v : new Object[] {"héllo", 42, 42L, true, 1.5, new BigDecimal("10.00"), UUID.randomUUID()}) {
            assertThat(codec.decode(codec.encode(v), v.getClass())).isEqualTo(v);
        }
        assertThat(codec.decode(codec.encode(null), String.class)).isNull();
    }

    @Test
    void basicCodecRefusesUnsupportedTypesBeforeWorkRuns() {
        assertThatThrownBy(() -> ResultCodec.basic().checkSupported(Object.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Object");
        assertThatThrownBy(() -> Idempotency.of(new InMemoryIdempotencyStore())
                        .execute(IdempotencyKey.of("s", "k"), Fingerprint.none(), Object.class, () -> {
                            throw new AssertionError("must not run");
                        }))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
