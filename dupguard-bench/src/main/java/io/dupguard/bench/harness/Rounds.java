package io.dupguard.bench.harness;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/** Picks what a report shows of several rounds of one row: the median. */
public final class Rounds {
    private Rounds() {}

    /**
     * The median of {@code rounds} by {@code value} (the mean of the two middle ones for an even
     * count) and the round closest to it, whose latencies and CPU a table shows.
     */
    public record Median<R>(double value, R round) {}

    public static <R> Optional<Median<R>> median(List<R> rounds, ToDoubleFunction<R> value) {
        List<R> sorted =
                rounds.stream().sorted(Comparator.comparingDouble(value)).toList();
        if (sorted.isEmpty()) {
            return Optional.empty();
        }
        int n = sorted.size();
        double m = n % 2 == 1
                ? value.applyAsDouble(sorted.get(n / 2))
                : (value.applyAsDouble(sorted.get(n / 2 - 1)) + value.applyAsDouble(sorted.get(n / 2))) / 2;
        R closest = sorted.stream()
                .min(Comparator.comparingDouble(r -> Math.abs(value.applyAsDouble(r) - m)))
                .orElseThrow();
        return Optional.of(new Median<>(m, closest));
    }

    /**
     * The median of the rounds' ratios {@code rows[i] / references[i]}, each round's value of a row
     * over the value of its reference in the same round: a slow phase of the machine that spans a
     * round weighs on both sides of its ratio, where a ratio of two medians takes it on one side.
     * Rounds beyond the shorter array are left out; NaN when there is none.
     */
    public static double medianRatio(double[] rows, double[] references) {
        int n = Math.min(rows.length, references.length);
        if (n == 0) {
            return Double.NaN;
        }
        double[] ratios = new double[n];
        for (int i = 0; i < n; i++) {
            ratios[i] = rows[i] / references[i];
        }
        return median(ratios);
    }

    /** The median of plain numbers. */
    public static double median(double[] xs) {
        double[] s = xs.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
