package io.dupguard.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MeterRatesTest {
    private final AtomicLong nanos = new AtomicLong();
    private final MeterRates rates = new MeterRates(nanos::get);

    private MeterRates.Rate read(double value) {
        return rates.read(List.of(new Console.Meter("dupguard.retry.tasks", "outcome=blocked", value)))
                .get(0);
    }

    @Test
    void theRateIsTheIncreaseSinceThePreviousViewPerMinute() {
        assertThat(read(10).perMinute()).as("no previous view").isNull();
        nanos.addAndGet(30_000_000_000L);
        assertThat(read(25).perMinute()).isEqualTo(30.0);
        nanos.addAndGet(1_000_000_000L);
        assertThat(read(26).perMinute()).as("a reload within 5 s shows none").isNull();
        nanos.addAndGet(59_000_000_000L);
        assertThat(read(85).perMinute()).isEqualTo(60.0);
    }
}
