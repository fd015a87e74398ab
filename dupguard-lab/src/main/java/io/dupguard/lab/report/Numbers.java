package io.dupguard.lab.report;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Number formats shared by the text and HTML reports; locale-independent. */
final class Numbers {
    private Numbers() {}

    /** {@code 12,345} */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 7,104} */
    static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    /** {@code 850 us}, {@code 6.2 ms}, {@code 412 ms}, {@code 2.3 s} */
    static String micros(long micros) {
        if (micros < 1000) {
            return micros + " us";
        } else if (micros < 100_000) {
            return String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
        } else if (micros < 10_000_000) {
            return String.format(Locale.ROOT, "%.0f ms", micros / 1000.0);
        }
        return String.format(Locale.ROOT, "%.1f s", micros / 1e6);
    }

    /** {@code 3.2 %} of {@code whole}, or {@code -} when there is no whole. */
    static String percent(long part, long whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }

    /** {@code 3s}, {@code 500ms} */
    static String millis(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    /** {@code stale writes accepted 12, overlaps 3}: a workload's metrics, camel-case keys as words. */
    static String metrics(Map<String, Long> metrics) {
        return metrics.entrySet().stream()
                .map(e -> words(e.getKey()) + " " + count(e.getValue()))
                .collect(Collectors.joining(", "));
    }

    /** {@code staleWritesAccepted} → {@code stale writes accepted} */
    static String words(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    }
}
