package io.dupguard.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Rates of the overview's meters: each read is compared with the previous read of the same meter
 * (at least 5 s earlier), which gives a rate per minute over the time between two views of the page.
 */
final class MeterRates {
    private static final long MIN_INTERVAL_NANOS = 5_000_000_000L;

    /**
     * A meter with its rate.
     *
     * @param name the meter's name
     * @param tags its tags
     * @param value its count or value
     * @param perMinute its increase per minute since the previous sample, or null before a second one
     */
    record Rate(String name, String tags, double value, Double perMinute) {}

    private record Sample(double value, long nanos) {}

    private final Map<String, Sample> previous = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    MeterRates(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    List<Rate> read(List<Console.Meter> meters) {
        long now = nanoTime.getAsLong();
        List<Rate> out = new ArrayList<>();
        for (Console.Meter m : meters) {
            String id = m.name() + "|" + m.tags();
            Sample before = previous.get(id);
            Double rate = null;
            if (before != null && now - before.nanos() >= MIN_INTERVAL_NANOS) {
                rate = (m.value() - before.value()) * 60e9 / (now - before.nanos());
            }
            if (before == null || now - before.nanos() >= MIN_INTERVAL_NANOS) {
                previous.put(id, new Sample(m.value(), now));
            } else {
                rate = null;
            }
            out.add(new Rate(m.name(), m.tags(), m.value(), rate));
        }
        return out;
    }
}
