package io.dupguard.spring.console;

import io.dupguard.console.Console;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ListableBeanFactory;

/** The {@code dupguard.*} meters of the application's registry: counters, gauges and timers' counts. */
final class MicrometerMeters {
    private MicrometerMeters() {}

    static void attach(Console.Builder b, ListableBeanFactory beans) {
        b.meters(() -> {
            MeterRegistry registry = beans.getBeanProvider(MeterRegistry.class).getIfUnique();
            List<Console.Meter> out = new ArrayList<>();
            if (registry == null) {
                return out;
            }
            for (Meter m : registry.getMeters()) {
                String name = m.getId().getName();
                if (!name.startsWith("dupguard.")) {
                    continue;
                }
                String tags = m.getId().getTags().stream()
                        .map(t -> t.getKey() + "=" + t.getValue())
                        .collect(Collectors.joining(","));
                double value = m instanceof Counter c
                        ? c.count()
                        : m instanceof Timer t ? t.count() : m instanceof Gauge g ? g.value() : Double.NaN;
                if (!Double.isNaN(value)) {
                    out.add(new Console.Meter(name, tags, value));
                }
            }
            out.sort(Comparator.comparing(Console.Meter::name).thenComparing(Console.Meter::tags));
            return out;
        });
    }
}
