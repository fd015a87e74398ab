package io.dupguard.bench.harness;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Durations on every benchmark's command line, in the lab's grammar: {@code 500ms}, {@code 3s},
 * {@code 1.5s}, {@code 2m}, ISO-8601 ({@code PT3S}), and, as the benchmarks always took, a plain
 * number of seconds ({@code 2}, {@code 0.5}). Zero or more; {@link Positive} for a measured window.
 */
public class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)?");

    @Override
    public Duration convert(String value) {
        Duration d = parse(value.trim().toLowerCase(java.util.Locale.ROOT));
        if (d.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative");
        }
        return d;
    }

    /** A duration that must be more than zero. */
    public static final class Positive extends DurationConverter {
        @Override
        public Duration convert(String value) {
            Duration d = super.convert(value);
            if (d.isZero()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a positive duration");
            }
            return d;
        }
    }

    static Duration parse(String value) {
        Matcher m = SIMPLE.matcher(value);
        if (m.matches()) {
            double amount = Double.parseDouble(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            double millis =
                    switch (unit) {
                        case "ms" -> amount;
                        case "s" -> amount * 1000;
                        default -> amount * 60_000;
                    };
            if (millis > Duration.ofDays(1).toMillis()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is longer than a day");
            }
            return Duration.ofMillis(Math.round(millis));
        }
        try {
            return Duration.parse(value.toUpperCase(java.util.Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration; use e.g. 500ms, 3s, 1.5s, 2m or PT3S");
        }
    }
}
