package io.dupguard.bench;

import io.dupguard.bench.DedupeBench.Phase;
import io.dupguard.bench.DedupeBench.Row;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The section "Duplicate clean-up" of {@code docs/benchmarks-dedupe.md}: replaced on every run, keeping the
 * hand-written notes under it.
 */
final class DedupeReport {
    private DedupeReport() {}

    static void write(Path out, List<Row> rows, Map<String, String> machine, Instant started, Duration window)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("## Duplicate clean-up\n\n");
        md.append(
                        "`dupguard dedupe` (guarantee C1, [dedupe.md](dedupe.md)) on a table of N rows with 3 % duplicates in")
                .append(" groups of 2–5 (a third differing only by case; `--compare ignore-case`, `--keep")
                .append(" oldest:created_at`), while 4 naive writers (one connection each, select-then-insert,")
                .append(" 3 % concurrent duplicates) keep inserting. Written by `scripts/bench-dedupe`.\n\n");
        md.append("Command: `scripts/bench-dedupe` — started ").append(started).append(".\n\n");
        md.append("| machine | |\n|---|---|\n");
        machine.forEach(
                (k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append(
                        "\n| database | rows | duplicates | scan rows/s | bare GROUP BY rows/s | plan s | apply rows/s, default rate")
                .append(" (1000/s, ")
                .append(window.toSeconds())
                .append(
                        " s) | apply rows/s, no limit (batch 2000) | hand-written batches, no backup, rows/s | guard s | bare")
                .append(" unique index s (no writers) | restore rows/s |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %,.0f | %,.0f | %.1f | %,.0f | %,.0f | %,.0f | %.1f | %.1f | %,.0f |%n",
                    r.target(),
                    r.rows(),
                    r.duplicates(),
                    r.scan().rowsPerSecond(),
                    r.scan().rowsScanned() / r.scanCeilingSeconds(),
                    r.planSeconds(),
                    r.defaultRowsPerSecond(),
                    r.unlimitedRowsPerSecond(),
                    r.handDeleteRowsPerSecond(),
                    r.guardSeconds(),
                    r.bareIndexSeconds(),
                    r.restoreRowsPerSecond()));
        }
        md.append("\nWriters' select-then-insert latency, p99 / max in ms (and operations measured), per phase:\n\n");
        md.append("| database | rows |");
        for (Phase p : Phase.values()) {
            md.append(' ').append(p.label).append(" |");
        }
        md.append("\n|---|---:|").append("---:|".repeat(Phase.values().length)).append('\n');
        for (Row r : rows) {
            md.append("| ").append(r.target()).append(String.format(Locale.ROOT, " | %,d |", r.rows()));
            for (Phase p : Phase.values()) {
                double[] v = r.writers().get(p);
                md.append(v == null ? " – |" : String.format(Locale.ROOT, " %.1f / %.0f (%,.0f) |", v[0], v[1], v[2]));
            }
            md.append('\n');
        }
        md.append("\nGuard details: ");
        for (Row r : rows) {
            md.append(String.format(
                    Locale.ROOT,
                    "%s %,d rows: %d build(s), %d duplicate rows inserted by the writers during guard cleaned; ",
                    r.target(),
                    r.rows(),
                    r.guard().attempts(),
                    r.guard().raceRowsDeleted()));
        }
        md.append("\n\n");
        String doc = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "# Benchmarks\n";
        int start = doc.indexOf("## Duplicate clean-up");
        if (start < 0) {
            doc = doc.stripTrailing() + "\n\n" + md;
        } else {
            int end = doc.indexOf("\n## ", start + 3);
            String notes = "";
            int handNotes = doc.indexOf("### Notes (written by hand)", start);
            if (handNotes >= 0 && (end < 0 || handNotes < end)) {
                notes = doc.substring(handNotes, end < 0 ? doc.length() : end + 1);
            }
            doc = doc.substring(0, start) + md + notes + (end < 0 ? "" : doc.substring(end + 1));
        }
        Files.writeString(out, doc, StandardCharsets.UTF_8);
        System.err.println("wrote " + out);
    }
}
