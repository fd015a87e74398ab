package io.dupguard.jackson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.memory.InMemoryIdempotencyStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

class JacksonResultCodecTest {
    record Money(BigDecimal amount, String currency) {}

    record Receipt(UUID id, Money total, Instant at, LocalDate day, Optional<String> note, List<String> lines) {}

    interface Payment {}

    private final JacksonResultCodec codec = JacksonResultCodec.create();

    private <T> T roundTrip(T value, Class<T> type) {
        return codec.decode(codec.encode(value), type);
    }

    @Test
    void recordsWithJavaTimeOptionalAndExactDecimalsRoundTrip() {
        Receipt r = new Receipt(
                UUID.randomUUID(),
                new Money(new BigDecimal("10.50"), "EUR"),
                Instant.parse("2026-11-24T10:00:00.123456789Z"),
                LocalDate.of(2026, 2, 28),
                Optional.of("gift \u00e9\ud83d\ude00"),
                List.of("a", "b"));
        Receipt back = roundTrip(r, Receipt.class);
        assertThat(back).isEqualTo(r);
        assertThat(back.total().amount().scale()).isEqualTo(2);
    }

    @Test
    void storesDatesAsIsoTextNotNumbers() {
        String json = new String(codec.encode(Map.of("at", Instant.parse("2026-01-02T03:04:05Z"))));
        assertThat(json).contains("2026-01-02T03:04:05Z");
        OffsetDateTime t = OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneOffset.ofHours(2));
        assertThat(roundTrip(t, OffsetDateTime.class).toInstant()).isEqualTo(t.toInstant());
        assertThat(roundTrip(Duration.ofMillis(1500), Duration.class)).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void nullAndEmptyOptionalReplayAsThemselves() {
        assertThat(roundTrip(null, Receipt.class)).isNull();
        assertThat(roundTrip(Optional.empty(), Optional.class)).isEqualTo(Optional.empty());
        assertThat(codec.decode(codec.encode(null), Optional.class)).isEqualTo(Optional.empty());
    }

    @Test
    void genericTypesAreDecodedThroughABoundTypeReference() {
        List<Money> list = List.of(new Money(BigDecimal.ONE, "EUR"), new Money(BigDecimal.TEN, "USD"));
        JacksonResultCodec typed = codec.forType(new TypeReference<List<Money>>() {});
        @SuppressWarnings("unchecked")
        List<Money> back = typed.decode(typed.encode(list), List.class);
        assertThat(back).containsExactlyElementsOf(list);
        assertThat(back.get(0)).isInstanceOf(Money.class);

        JacksonResultCodec nested = codec.forType(new TypeReference<Map<String, List<Instant>>>() {});
        Map<String, List<Instant>> map = Map.of("k", List.of(Instant.EPOCH));
        @SuppressWarnings("unchecked")
        Map<String, List<Instant>> mapBack = nested.decode(nested.encode(map), Map.class);
        assertThat(mapBack.get("k").get(0)).isEqualTo(Instant.EPOCH);
    }

    @Test
    void replayThroughIdempotencyReturnsAnEqualGenericGraph() {
        Idempotency idempotency = Idempotency.of(
                new InMemoryIdempotencyStore(),
                IdempotencyConfig.custom().codec(codec).build());
        IdempotencyKey key = IdempotencyKey.of("orders", "k-1");
        AtomicInteger runs = new AtomicInteger();
        TypeReference<List<Money>> type = new TypeReference<>() {};
        Outcome<List<Money>> first = codec.execute(idempotency, key, Fingerprint.ofString("p"), type, () -> {
            runs.incrementAndGet();
            return List.of(new Money(new BigDecimal("1.00"), "EUR"));
        });
        Outcome<List<Money>> again = codec.execute(idempotency, key, Fingerprint.ofString("p"), type, () -> {
            runs.incrementAndGet();
            return List.of();
        });
        assertThat(first.isReplay()).isFalse();
        assertThat(again.isReplay()).isTrue();
        assertThat(again.value()).isEqualTo(first.value());
        assertThat(again.value().get(0)).isInstanceOf(Money.class);
        assertThat(runs).hasValue(1);

        Outcome<Receipt> plain =
                idempotency.execute(IdempotencyKey.of("orders", "k-2"), Fingerprint.none(), Receipt.class, () -> null);
        assertThat(plain.value()).isNull();
    }

    @Test
    void refusesAbstractTypesItCouldNotReadBackBeforeAnyWorkRuns() {
        assertThatThrownBy(() -> codec.checkSupported(Payment.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Payment.class.getName())
                .hasMessageContaining("@JsonTypeInfo");
        codec.checkSupported(List.class);
        codec.checkSupported(Map.class);
        codec.checkSupported(Receipt.class);
        codec.checkSupported(Number.class);
    }

    @Test
    void unreadableStoredBytesNameTheTargetType() {
        assertThatThrownBy(() -> codec.decode("{\"x\":".getBytes(), Money.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Money");
    }

    @Test
    void usesTheApplicationsMapper() {
        JsonMapper mapper = JsonMapper.builder().build();
        assertThat(JacksonResultCodec.of(mapper).mapper()).isSameAs(mapper);
        assertThatThrownBy(() -> JacksonResultCodec.of(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("mapper");
    }
}
