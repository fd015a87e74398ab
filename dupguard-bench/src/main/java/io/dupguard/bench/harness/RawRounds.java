package io.dupguard.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * Every measured round behind a report page, which shows each row's median: a CSV file in {@code
 * raw/} beside the page ({@code docs/benchmarks-locks.md} → {@code docs/raw/benchmarks-locks.csv}),
 * one line per round, under {@code #} lines naming the page, the command and the start.
 */
public final class RawRounds {
    /** The column line. */
    public static final String COLUMNS = "store,row,workload,round,per_second,other_cpu_percent,result";

    private final StringBuilder csv = new StringBuilder();

    /**
     * @param page the page's file name, e.g. {@code benchmarks-locks.md}
     * @param unit what {@code per_second} counts, e.g. "lock + unlock cycles (contended: acquisitions)"
     */
    public RawRounds(String page, String command, Instant started, String unit) {
        csv.append("# Every measured round behind ")
                .append(page)
                .append(", which shows each row's median.\n# Command: ")
                .append(command)
                .append("\n# Started ")
                .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME
                        .withZone(ZoneOffset.UTC)
                        .format(started.truncatedTo(ChronoUnit.SECONDS)))
                .append(" UTC.\n# per_second: ")
                .append(unit)
                .append(" per second of the measured window; other_cpu_percent: the machine's CPU that other")
                .append(" processes used in that window (empty: not measured).\n")
                .append(COLUMNS)
                .append('\n');
    }

    /** One round; {@code otherShare} 0–1, NaN if not measured; {@code result} "ok" or what failed. */
    public RawRounds round(
            String store, String row, String workload, int round, double perSecond, double otherShare, String result) {
        csv.append(field(store))
                .append(',')
                .append(field(row))
                .append(',')
                .append(field(workload))
                .append(',')
                .append(round)
                .append(',')
                .append(Double.isNaN(perSecond) ? "" : String.valueOf(Math.round(perSecond)))
                .append(',')
                .append(Double.isNaN(otherShare) ? "" : String.valueOf(Math.round(otherShare * 100)))
                .append(',')
                .append(field(result))
                .append('\n');
        return this;
    }

    /** The rounds of one row in one workload, in round order. */
    public <R> RawRounds rounds(
            String store,
            String row,
            String workload,
            List<R> runs,
            ToIntFunction<R> round,
            ToDoubleFunction<R> perSecond,
            ToDoubleFunction<R> otherShare,
            Function<R, String> result) {
        runs.stream()
                .sorted(Comparator.comparingInt(round))
                .forEach(r -> round(
                        store,
                        row,
                        workload,
                        round.applyAsInt(r),
                        perSecond.applyAsDouble(r),
                        otherShare.applyAsDouble(r),
                        result.apply(r)));
        return this;
    }

    @Override
    public String toString() {
        return csv.toString();
    }

    /** A CSV field: quoted if it holds a comma, a quote or a line break. */
    static String field(String v) {
        if (v.contains(",") || v.contains("\"") || v.contains("\n") || v.contains("\r")) {
            return "\"" + v.replace("\"", "\"\"") + "\"";
        }
        return v;
    }

    /** The raw file of {@code page}: {@code raw/<page without .md>.csv} in the page's directory. */
    public static Path beside(Path page) {
        String name = page.getFileName().toString();
        String base = name.endsWith(".md") ? name.substring(0, name.length() - 3) : name;
        Path dir = page.toAbsolutePath().getParent();
        return dir.resolve("raw").resolve(base + ".csv");
    }

    /** How the page links its raw file: {@code raw/<page without .md>.csv}. */
    public static String link(Path page) {
        return "raw/" + beside(page).getFileName();
    }

    /** How a page names its raw file: a link, or (no file, {@code link} null) where the rounds went. */
    public static String mention(String link) {
        return link == null ? "the raw rounds printed after the page" : "[" + link + "](" + link + ")";
    }

    /** Writes {@code rounds} to the raw file of {@code page}; returns where. */
    public static Path write(Path page, RawRounds rounds) throws IOException {
        Path file = beside(page);
        Files.createDirectories(file.getParent());
        Files.writeString(file, rounds.toString(), StandardCharsets.UTF_8);
        return file;
    }
}
