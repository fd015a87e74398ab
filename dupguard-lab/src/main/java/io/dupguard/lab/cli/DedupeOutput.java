package io.dupguard.lab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dupguard.jdbc.dedupe.ApplyResult;
import io.dupguard.jdbc.dedupe.DuplicateGroup;
import io.dupguard.jdbc.dedupe.GuardResult;
import io.dupguard.jdbc.dedupe.Progress;
import io.dupguard.jdbc.dedupe.RestoreResult;
import io.dupguard.jdbc.dedupe.ScanReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Text and JSON output of the {@code dedupe} phases. */
final class DedupeOutput {
    private DedupeOutput() {}

    static void print(ScanReport r, PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "scan %s (%s), compare %s%n",
                r.table(),
                String.join(", ", r.keyColumns()),
                r.comparison());
        out.printf(
                Locale.ROOT,
                "  rows scanned     %,12d   (%,.0f rows/s, %s)%n",
                r.rowsScanned(),
                r.rowsPerSecond(),
                human(r.elapsed()));
        out.printf(Locale.ROOT, "  duplicate groups %,12d%n", r.groups());
        out.printf(Locale.ROOT, "  rows to delete   %,12d%n", r.rowsToDelete());
        if (!r.largest().isEmpty()) {
            out.println("  largest groups:");
            for (DuplicateGroup g : r.largest()) {
                out.printf(Locale.ROOT, "    %,6d rows  %s%n", g.rows(), String.join(" | ", g.key()));
            }
        }
        if (!r.sample().isEmpty()) {
            out.println("  sample (the first row of a group is kept):");
            for (DuplicateGroup g : r.sample()) {
                out.printf(Locale.ROOT, "    %s (%d rows)%n", String.join(" | ", g.key()), g.rows());
                boolean first = true;
                for (DuplicateGroup.Member m : g.members()) {
                    StringBuilder line = new StringBuilder(first ? "      keep   id=" : "      delete id=");
                    line.append(m.id());
                    for (int i = 0; i < m.values().size(); i++) {
                        line.append("  ")
                                .append(r.memberColumns().get(i))
                                .append('=')
                                .append(m.values().get(i));
                    }
                    out.println(line);
                    first = false;
                }
            }
        }
    }

    static void print(ApplyResult r, PrintWriter out) {
        if (r.dryRun()) {
            out.printf(
                    Locale.ROOT,
                    "dry run: would delete %,d rows; %,d rows in groups the merge check leaves for a person;"
                            + " nothing written%n",
                    r.planned(),
                    r.conflicts());
            return;
        }
        out.printf(
                Locale.ROOT,
                "apply run %s%s: deleted %,d of %,d planned rows (%,d skipped: changed or gone since the plan),"
                        + " %d batches in %s%s%n",
                r.runId(),
                r.resumed() ? " (resumed)" : "",
                r.deleted(),
                r.planned(),
                r.skipped(),
                r.batches(),
                human(r.elapsed()),
                r.finished() ? "" : " — STOPPED; run apply again to continue");
        if (r.conflicts() > 0) {
            out.printf(
                    Locale.ROOT,
                    "  %,d rows left for a person: their group differs in a --merge-check column%n",
                    r.conflicts());
        }
        out.println("  every deleted row is in the backup table under run " + r.runId() + "; 'dedupe restore --run "
                + r.runId() + "' puts them back");
    }

    static void print(GuardResult r, PrintWriter out) {
        if (r.alreadyPresent()) {
            out.println("guard: unique index " + r.index() + " already exists and is valid");
            return;
        }
        out.printf(
                Locale.ROOT,
                "guard: unique index %s %s after %d build(s); %,d duplicate rows inserted meanwhile were cleaned"
                        + " (with backup)%s%n",
                r.index(),
                r.valid() ? "is valid" : "is NOT in place",
                r.attempts(),
                r.raceRowsDeleted(),
                r.invalidIndexesDropped() > 0
                        ? "; dropped " + r.invalidIndexesDropped() + " INVALID index(es) left by failed builds"
                        : "");
    }

    static void print(RestoreResult r, PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "restore run %s: %,d rows put back, %,d already in the table%n",
                r.runId(),
                r.restored(),
                r.alreadyPresent());
    }

    static Map<String, Object> toJson(ScanReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", r.table());
        m.put("key", r.keyColumns());
        m.put("compare", r.comparison());
        m.put("rowsScanned", r.rowsScanned());
        m.put("groups", r.groups());
        m.put("rowsToDelete", r.rowsToDelete());
        m.put("rowsPerSecond", Math.round(r.rowsPerSecond()));
        m.put("elapsedMillis", r.elapsed().toMillis());
        m.put("largest", r.largest().stream().map(g -> group(g, r)).toList());
        m.put("sample", r.sample().stream().map(g -> group(g, r)).toList());
        return m;
    }

    private static Map<String, Object> group(DuplicateGroup g, ScanReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", g.key());
        m.put("rows", g.rows());
        if (!g.members().isEmpty()) {
            m.put(
                    "members",
                    g.members().stream()
                            .map(member -> {
                                Map<String, Object> row = new LinkedHashMap<>();
                                row.put("id", member.id());
                                for (int i = 0; i < member.values().size(); i++) {
                                    row.put(
                                            r.memberColumns().get(i),
                                            member.values().get(i));
                                }
                                return row;
                            })
                            .toList());
        }
        return m;
    }

    static Map<String, Object> toJson(ApplyResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("runId", r.runId());
        m.put("dryRun", r.dryRun());
        m.put("resumed", r.resumed());
        m.put("planned", r.planned());
        m.put("conflicts", r.conflicts());
        m.put("deleted", r.deleted());
        m.put("skipped", r.skipped());
        m.put("batches", r.batches());
        m.put("finished", r.finished());
        m.put("elapsedMillis", r.elapsed().toMillis());
        return m;
    }

    static Map<String, Object> toJson(GuardResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("index", r.index());
        m.put("valid", r.valid());
        m.put("alreadyPresent", r.alreadyPresent());
        m.put("attempts", r.attempts());
        m.put("invalidIndexesDropped", r.invalidIndexesDropped());
        m.put("raceRowsDeleted", r.raceRowsDeleted());
        return m;
    }

    static Map<String, Object> toJson(RestoreResult r) {
        return new LinkedHashMap<>(
                Map.of("runId", r.runId(), "restored", r.restored(), "alreadyPresent", r.alreadyPresent()));
    }

    static void writeJson(Path file, Map<String, Object> json) {
        try {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
        } catch (IOException e) {
            throw new UncheckedIOException("--json: cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        long s = Math.round(ms / 1000.0);
        return s < 60 ? String.format(Locale.ROOT, "%.1f s", ms / 1000.0) : s / 60 + " min " + s % 60 + " s";
    }

    /** A progress bar on a terminal (redrawn in place), else one line every 10 % or 5 s. */
    static final class ProgressBar implements Progress.Listener, AutoCloseable {
        private static final int WIDTH = 30;
        private final PrintWriter err;
        private final boolean terminal;
        private long lastLine;
        private int lastTenth = -1;
        private boolean drawn;

        ProgressBar(PrintWriter err, boolean terminal) {
            this.err = err;
            this.terminal = terminal;
        }

        @Override
        public void onBatch(Progress p) {
            double share = p.total() == 0 ? 1 : (double) p.done() / p.total();
            String eta = p.eta().map(DedupeOutput::human).orElse("?");
            String text = String.format(
                    Locale.ROOT,
                    "%3.0f%% %,d/%,d rows  %,.0f rows/s  ETA %s",
                    share * 100,
                    p.done(),
                    p.total(),
                    p.rowsPerSecond(),
                    eta);
            if (terminal) {
                int filled = (int) Math.round(share * WIDTH);
                err.print("\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + text + "   ");
                err.flush();
                drawn = true;
                return;
            }
            long now = System.nanoTime();
            int tenth = (int) (share * 10);
            if (tenth != lastTenth || now - lastLine > 5_000_000_000L) {
                err.println("apply " + p.runId() + ": " + text);
                lastTenth = tenth;
                lastLine = now;
            }
        }

        @Override
        public void close() {
            if (drawn) {
                err.println();
            }
        }
    }
}
