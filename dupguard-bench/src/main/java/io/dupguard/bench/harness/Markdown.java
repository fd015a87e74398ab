package io.dupguard.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one report writer of every benchmark: number formats, Markdown tables, the command / started /
 * machine sections every report opens with, and rewriting a report file while keeping the notes
 * written by hand below its marker.
 */
public final class Markdown {
    private Markdown() {}

    /** "1,234,567" (whole operations per second); "—" for NaN. */
    public static String ops(double perSecond) {
        return Double.isNaN(perSecond) ? "—" : String.format(Locale.ROOT, "%,d", Math.round(perSecond));
    }

    /** Microseconds: one decimal below 100 µs, whole numbers above; "—" for NaN. */
    public static String micros(double micros) {
        if (Double.isNaN(micros)) {
            return "—";
        }
        return micros < 100
                ? String.format(Locale.ROOT, "%.1f", micros)
                : String.format(Locale.ROOT, "%,d", Math.round(micros));
    }

    public static String ratio(double ratio) {
        return String.format(Locale.ROOT, "%.2f×", ratio);
    }

    /** "50 %"; "?" for NaN. */
    public static String percent(double share) {
        return Double.isNaN(share) ? "?" : String.format(Locale.ROOT, "%.0f %%", share * 100);
    }

    /** "2.00"; "—" for NaN. */
    public static String decimal2(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.2f", v);
    }

    public static String elapsed(Duration d) {
        long s = d.toSeconds();
        return s >= 60 ? (s / 60) + " min " + (s % 60) + " s" : s + " s";
    }

    /** "500ms", "3s". */
    public static String duration(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }

    /** A value safe inside a Markdown table cell. */
    public static String cell(String v) {
        return v.replace("|", "\\|").replace("\r", " ").replace("\n", " ");
    }

    /** A Markdown table built row by row; cells are escaped. */
    public static final class Table {
        private final List<String> header;
        private final String alignment;
        private final List<List<String>> rows = new ArrayList<>();

        /** {@code alignment}: one character per column, 'l' (left), 'r' (right) or 'c' (centre). */
        public Table(String alignment, String... header) {
            if (alignment.length() != header.length) {
                throw new IllegalArgumentException("alignment '" + alignment + "' has " + alignment.length()
                        + " columns, header " + header.length);
            }
            this.header = List.of(header);
            this.alignment = alignment;
        }

        public Table row(Object... cells) {
            if (cells.length != header.size()) {
                throw new IllegalArgumentException(
                        "a row of " + cells.length + " cells in a table of " + header.size() + " columns");
            }
            List<String> r = new ArrayList<>();
            for (Object c : cells) {
                r.add(c == null ? "" : cell(String.valueOf(c)));
            }
            rows.add(r);
            return this;
        }

        public boolean isEmpty() {
            return rows.isEmpty();
        }

        @Override
        public String toString() {
            StringBuilder md =
                    new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n|");
            for (char a : alignment.toCharArray()) {
                md.append(
                        switch (a) {
                            case 'r' -> "---:|";
                            case 'c' -> ":-:|";
                            default -> "---|";
                        });
            }
            md.append('\n');
            for (List<String> r : rows) {
                md.append("| ").append(String.join(" | ", r)).append(" |\n");
            }
            return md.toString();
        }
    }

    /** "## Command" with the command line, and when it started and how long it took. */
    public static String commandSection(String command, Instant started, Duration elapsed) {
        return "## Command\n\n```\n" + command + "\n```\n\nStarted "
                + DateTimeFormatter.ISO_LOCAL_DATE_TIME
                        .withZone(ZoneOffset.UTC)
                        .format(started.truncatedTo(ChronoUnit.SECONDS))
                + " UTC, took " + elapsed(elapsed) + ".\n\n";
    }

    /** "## Machine": a two-column table of {@link MachineInfo} and the servers. */
    public static String machineSection(Map<String, String> machine, Map<String, String> servers) {
        Table t = new Table("ll", "", "");
        machine.forEach(t::row);
        servers.forEach((store, server) -> t.row(store + " server", server));
        return "## Machine\n\n" + t + "\n";
    }

    /**
     * The new report followed by the hand-written notes of the old one: everything from {@code
     * marker} on. If the new report ends with the marker itself, the old notes replace it.
     */
    public static String withKeptNotes(String report, String previous, String marker) {
        if (previous == null) {
            return report;
        }
        int at = previous.indexOf(marker);
        if (at < 0) {
            return report;
        }
        String body = report.stripTrailing();
        if (body.endsWith(marker)) {
            body = body.substring(0, body.length() - marker.length());
        }
        return body.stripTrailing() + "\n\n" + previous.substring(at);
    }

    /** Writes {@code report} to {@code out}, keeping the notes of the file there below {@code marker}. */
    public static void write(Path out, String report, String marker) throws IOException {
        String previous = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : null;
        if (out.toAbsolutePath().getParent() != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
        }
        Files.writeString(out, withKeptNotes(report, previous, marker), StandardCharsets.UTF_8);
    }
}
