package io.dupguard.test;

import io.dupguard.StoreUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The in-memory stores have no server to pause; they read this clock on every operation, so a clock
 * that fails while "down" makes every operation of the stores built on it fail, as a paused server
 * does for all its clients.
 */
final class OutageClock extends Clock implements StoreOutage {
    private volatile long downUntilNanos = System.nanoTime();

    @Override
    public void begin(Duration duration) {
        downUntilNanos = System.nanoTime() + duration.toNanos();
    }

    @Override
    public long millis() {
        if (System.nanoTime() - downUntilNanos < 0) {
            throw new StoreUnavailableException("memory", "simulated outage", null);
        }
        return System.currentTimeMillis();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
