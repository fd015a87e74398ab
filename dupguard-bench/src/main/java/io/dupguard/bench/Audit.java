package io.dupguard.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * Counts what one call of each row sends to its store — connection checkouts, statements, commits
 * or Redis commands — on one thread, untimed: first {@link #CALLS} calls on fresh keys, then the
 * same keys again as duplicates. This is the "round trips per call" evidence behind the ratios.
 */
final class Audit {
    static final int CALLS = 200;

    private Audit() {}

    /**
     * Rows wired to counters, how to reset the counters, and how to describe them per call.
     *
     * @param impls the rows, built on counting connections (not the measured instances)
     * @param reset zeroes the counters
     * @param describe what was counted, per call, given the number of calls
     */
    record Subject(List<BenchImpl> impls, Runnable reset, IntFunction<String> describe) {}

    /** What one row sent per call. */
    record Row(String impl, String unique, String duplicate, String problem) {}

    static List<Row> run(Subject subject, String runTag) {
        List<Row> rows = new ArrayList<>();
        for (BenchImpl impl : subject.impls()) {
            String problem = null;
            String unique = "";
            String duplicate = "";
            try {
                impl.reset();
                BenchImpl.Client client = impl.newClient();
                subject.reset().run();
                int wrong = 0;
                for (int i = 0; i < CALLS; i++) {
                    if (!client.call(runTag + "-" + i, i)) {
                        wrong++;
                    }
                }
                unique = subject.describe().apply(CALLS);
                subject.reset().run();
                for (int i = 0; i < CALLS; i++) {
                    if (client.call(runTag + "-" + i, i)) {
                        wrong++;
                    }
                }
                duplicate = subject.describe().apply(CALLS);
                impl.reset();
                if (wrong > 0) {
                    problem = wrong + " calls with an unexpected outcome";
                }
            } catch (Exception e) {
                problem = e.toString();
            }
            rows.add(new Row(impl.name(), unique, duplicate, problem));
        }
        return rows;
    }

    /** "2 statements", "1 commit", "0.5 checkouts". */
    static String format(double perCall, String what) {
        return number(perCall) + " " + what + (perCall == 1 ? "" : "s");
    }

    /** "2", "0.50". */
    static String number(double perCall) {
        return perCall == Math.rint(perCall)
                ? Long.toString(Math.round(perCall))
                : String.format(Locale.ROOT, "%.2f", perCall);
    }
}
