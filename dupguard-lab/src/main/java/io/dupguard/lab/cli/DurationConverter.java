package io.dupguard.lab.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** {@code 500ms}, {@code 3s}, {@code 1.5s}, {@code 2m}, or ISO-8601 ({@code PT3S}); always positive. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

    @Override
    public Duration convert(String value) {
        Duration d = parse(value.trim());
        if (d.isZero() || d.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a positive duration");
        }
        return d;
    }

    private static Duration parse(String value) {
        Matcher m = SIMPLE.matcher(value);
        if (m.matches()) {
            double amount = Double.parseDouble(m.group(1));
            double millis =
                    switch (m.group(2)) {
                        case "ms" -> amount;
                        case "s" -> amount * 1000;
                        default -> amount * 60_000;
                    };
            if (millis > Duration.ofDays(1).toMillis()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is longer than a day");
            }
            return Duration.ofNanos(Math.round(millis * 1_000_000));
        }
        try {
            return Duration.parse(value);
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration; use e.g. 500ms, 3s, 1.5s, 2m or PT3S");
        }
    }
}
