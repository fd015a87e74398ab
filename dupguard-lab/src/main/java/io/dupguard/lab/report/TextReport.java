package io.dupguard.lab.report;

import io.dupguard.lab.fault.Faults;
import io.dupguard.lab.storm.Family;
import io.dupguard.lab.storm.StormReport;
import io.dupguard.lab.storm.StrategyResult;
import io.dupguard.lab.storm.WorkloadReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The tables on stdout: one per workload, strategy by strategy, then what broke and why. Plain
 * ASCII, so it reads the same in any terminal, log or CI output.
 */
public final class TextReport {
    /** The columns, also the HTML table's; {@code attempts refused} is in attempts, the rest in requests. */
    static final String[] HEADERS = {
        "strategy",
        "family",
        "requests",
        "dup sent",
        "dup absorbed",
        "dup effects",
        "lost",
        "attempts refused",
        "ops/s",
        "p50",
        "p99"
    };

    private TextReport() {}

    public static void print(StormReport report, PrintWriter out) {
        for (WorkloadReport w : report.workloads()) {
            out.println(w.name() + " - " + w.summary());
            List<String[]> rows = new ArrayList<>();
            rows.add(HEADERS);
            for (StrategyResult s : w.strategies()) {
                rows.add(row(s));
            }
            printAligned(rows, 2, out);
            int width = w.strategies().stream()
                    .mapToInt(s -> s.label().length())
                    .max()
                    .orElse(0);
            for (StrategyResult s : w.strategies()) {
                if (s.metrics().values().stream().anyMatch(v -> v != 0)) {
                    out.println("  " + pad(s.label(), width, false) + "  " + Numbers.metrics(s.metrics()));
                }
            }
            for (StrategyResult s : w.strategies()) {
                if (!s.ok()) {
                    boolean limit = !s.durable() && Family.DUPGUARD.id().equals(s.family());
                    String tag = s.brokenDupguard() ? "  BROKEN " : limit ? "  LIMIT  " : "  naive  ";
                    out.println(tag + s.label() + ": " + String.join("; ", s.violations())
                            + (limit ? " (" + Faults.limit(s.fault()) + ")" : ""));
                    if (!s.evidence().isEmpty()) {
                        out.println("           e.g. " + s.evidence());
                    }
                }
            }
            out.println();
        }
        StormReport.Setup setup = report.setup();
        long runs = report.workloads().stream()
                .mapToLong(w -> w.strategies().size())
                .sum();
        out.printf(
                Locale.ROOT,
                "storm: %d strategy runs in %.1f s on %s%s; %d clients, %s each, seed %d, client timeout %s%n",
                runs,
                report.wallSeconds(),
                setup.database(),
                servers(setup),
                setup.clients(),
                Numbers.millis(setup.durationMillis()),
                setup.seed(),
                Numbers.millis(setup.timeoutMillis()));
        if (report.ok()) {
            boolean limits = report.workloads().stream()
                    .flatMap(w -> w.strategies().stream())
                    .anyMatch(r -> !r.ok() && !r.durable());
            out.println("ok: every dupguard strategy had 0 duplicate effects, 0 lost requests, "
                    + "no tampered duplicate accepted and every replay equal to the first answer"
                    + (limits ? " on every store setting that can promise it (LIMIT rows above)" : ""));
        } else {
            out.println("FAILED: a dupguard strategy broke an invariant:");
            report.brokenDupguard().forEach(line -> out.println("  " + line));
        }
    }

    private static String servers(StormReport.Setup setup) {
        StringBuilder b = new StringBuilder();
        for (String server : new String[] {setup.redis(), setup.redlock(), setup.zookeeper()}) {
            if (!server.isEmpty()) {
                b.append(" + ").append(server);
            }
        }
        return b.toString();
    }

    private static String[] row(StrategyResult s) {
        return new String[] {
            s.label(),
            s.family(),
            Numbers.count(s.requests()),
            Numbers.count(s.duplicatesSent()),
            Numbers.count(s.duplicatesAbsorbed()),
            Numbers.count(s.duplicateEffects()),
            Numbers.count(s.lost()),
            Numbers.count(s.refused()),
            Numbers.rate(s.opsPerSec()),
            Numbers.micros(s.p50Micros()),
            Numbers.micros(s.p99Micros())
        };
    }

    /** The first {@code left} columns left-aligned, the rest (numbers) right-aligned. */
    static void printAligned(List<String[]> rows, int left, PrintWriter out) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                String cell = pad(r[i], width[i], i >= left);
                line.append(i == 0 ? "  " : "  ").append(cell);
            }
            out.println(line.toString().stripTrailing());
        }
    }

    static String pad(String s, int width, boolean right) {
        String spaces = " ".repeat(width - s.length());
        return right ? spaces + s : s + spaces;
    }
}
