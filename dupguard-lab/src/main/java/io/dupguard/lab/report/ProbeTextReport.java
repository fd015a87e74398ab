package io.dupguard.lab.report;

import io.dupguard.lab.probe.HttpProbe;
import io.dupguard.lab.probe.KeyResult;
import io.dupguard.lab.probe.ProbeReport;
import io.dupguard.lab.probe.ScenarioVerdict;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** {@code dupguard probe}'s table on stdout, in the storm's style: scenario by scenario, then what broke and why. */
public final class ProbeTextReport {
    static final String[] HEADERS = {
        "scenario", "verdict", "keys", "requests", "effects", "duplicate", "lost", "answers", "p50", "p99"
    };

    private ProbeTextReport() {}

    public static void print(ProbeReport report, PrintWriter out) {
        out.println("probe " + report.target() + " - does the service take each request once?");
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADERS);
        for (ScenarioVerdict s : report.scenarios()) {
            rows.add(row(s));
        }
        TextReport.printAligned(rows, 2, out);
        for (ScenarioVerdict s : report.scenarios()) {
            if (!s.findings().isEmpty()) {
                for (String f : s.findings()) {
                    out.println("  " + TextReport.pad(s.verdict(), 5, false) + " " + s.name() + ": " + f);
                }
            }
        }
        for (ScenarioVerdict s : report.scenarios()) {
            for (String n : s.notes()) {
                out.println("  note  " + s.name() + ": " + n);
            }
        }
        out.println();
        long requests =
                report.scenarios().stream().mapToLong(ScenarioVerdict::requests).sum();
        long keys = report.scenarios().stream().mapToLong(s -> s.keys().size()).sum();
        out.printf(
                Locale.ROOT,
                "probe: %d scenarios, %d keys, %d requests in %.1f s; effects counted by %s%n",
                report.scenarios().size(),
                keys,
                requests,
                report.wallSeconds(),
                String.join(" and ", report.effectsQueries()));
        if (report.ok()) {
            out.println("ok: every key took effect exactly once"
                    + (warned(report) ? " (WARN rows above: answers a" + " client cannot rely on)" : ""));
        } else {
            out.println("FAILED: keys with duplicate or lost effects:");
            report.brokenKeys().forEach(k -> out.println("  " + k));
        }
    }

    private static boolean warned(ProbeReport report) {
        return report.scenarios().stream().anyMatch(s -> ScenarioVerdict.WARN.equals(s.verdict()));
    }

    static String[] row(ScenarioVerdict s) {
        return new String[] {
            s.name(),
            s.verdict(),
            Numbers.count(s.keys().size()),
            Numbers.count(s.requests()),
            effects(s),
            Numbers.count(count(s, KeyResult.DUPLICATE)),
            Numbers.count(count(s, KeyResult.LOST)),
            answers(s.answers()),
            Numbers.micros(s.p50Micros()),
            Numbers.micros(s.p99Micros())
        };
    }

    /** The effects per key, e.g. {@code 1} when every key had one, {@code 1,32} otherwise. */
    static String effects(ScenarioVerdict s) {
        return s.keys().stream().map(KeyResult::effectsText).distinct().sorted().collect(Collectors.joining(","));
    }

    static long count(ScenarioVerdict s, String verdict) {
        return s.keys().stream().filter(k -> k.verdict().equals(verdict)).count();
    }

    /** {@code 201 x3, 409 x12} */
    static String answers(Map<String, Long> answers) {
        return answers.entrySet().stream()
                .map(e -> e.getValue() == 1 ? e.getKey() : e.getKey() + " x" + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** The scenario names, for help texts. */
    public static String scenarios() {
        return String.join(", ", HttpProbe.SCENARIOS);
    }
}
