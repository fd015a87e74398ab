package io.dupguard.bench.consumer;

import io.dupguard.bench.harness.Markdown;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The Markdown report of {@link ConsumerBench}: medians, ratios to the ceiling, the targets. */
final class ConsumerReport {
    static final String CEILING = SqlRows.CEILING;
    static final String PER_RECORD = SqlRows.PER_RECORD;
    static final String BATCH = SqlRows.BATCH;
    static final String REDIS_BATCH = RedisRows.REDIS_BATCH;
    static final String SI = SqlRows.SI;
    static final String CAMEL = SqlRows.CAMEL;

    private ConsumerReport() {}

    static String render(
            ConsumerBench.Options o,
            String command,
            Instant started,
            Duration elapsed,
            Map<String, String> machine,
            Map<String, String> servers,
            Map<ConsumerBench.Target, ConsumerBench.Results> results) {
        StringBuilder md = new StringBuilder("# Consumer throughput with dedup\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Written by `scripts/bench-consumer`. %d consumer threads, one per partition, handle their"
                        + " partition's Kafka `ConsumerRecord`s poll by poll as a batch listener would, from lists"
                        + " built before any timing (%,d per partition, %.0f %% of them re-sends of one of the"
                        + " partition's last %,d messages; no broker: on 2 shared cores it would be the"
                        + " bottleneck). Each message's handler writes one effect row, in the poll's transaction"
                        + " unless said. A run: %s warm-up, %s measured (each thread's whole polls over their"
                        + " time); %d rounds after an unmeasured pass, row order reversed every other round. A"
                        + " cell is the median of the rounds in records/s (copies included); a ratio is the"
                        + " median of the rounds' ratios, each over the other row's run in the same round. After"
                        + " every run each message's effect was checked to be there exactly once (the ceiling:"
                        + " once per record).\n\n",
                o.threads(),
                o.records,
                o.dupRate * 100,
                Feed.RECENT,
                Markdown.duration(o.warmup()),
                Markdown.duration(o.duration()),
                o.rounds()));
        md.append(Markdown.commandSection(command, started, elapsed));
        md.append(Markdown.machineSection(machine, servers));
        md.append("## Results\n\n");
        for (Map.Entry<ConsumerBench.Target, ConsumerBench.Results> e : results.entrySet()) {
            md.append("### ").append(e.getKey().label).append("\n\n");
            md.append(table(o.batchSizes, e.getValue())).append('\n');
        }
        md.append("## Targets\n\n").append(targets(o.batchSizes, results)).append('\n');
        md.append("## Every round (records/s)\n\n")
                .append(rounds(o.batchSizes, results))
                .append('\n');
        md.append("## Rows\n\n");
        // A row whose poll is the same on every database is described once.
        Map<String, Map<String, List<String>>> byRow = new java.util.LinkedHashMap<>();
        results.forEach((target, r) ->
                r.descriptions.forEach((row, d) -> byRow.computeIfAbsent(row, k -> new java.util.LinkedHashMap<>())
                        .computeIfAbsent(d, k -> new ArrayList<>())
                        .add(target.label)));
        Markdown.Table legend = new Markdown.Table("lll", "database", "row", "one poll");
        byRow.forEach(
                (row, byDescription) -> byDescription.forEach((d, dbs) -> legend.row(String.join(", ", dbs), row, d)));
        md.append(legend).append("\n").append(ConsumerBench.NOTES_MARKER).append('\n');
        return md.toString();
    }

    private static Markdown.Table table(List<Integer> batches, ConsumerBench.Results r) {
        boolean handWritten = r.runs.containsKey(SqlRows.HAND_WRITTEN);
        List<String> header = new ArrayList<>(List.of("row"));
        StringBuilder align = new StringBuilder("l");
        for (int b : batches) {
            header.add("batch " + b + " records/s");
            header.add("× ceiling");
            align.append("rr");
            if (handWritten) {
                header.add("× hand-written");
                align.append('r');
            }
        }
        Markdown.Table t = new Markdown.Table(align.toString(), header.toArray(String[]::new));
        for (String row : r.runs.keySet()) {
            List<Object> cells = new ArrayList<>(List.of(row));
            for (int b : batches) {
                double v = r.median(row, b);
                cells.add(Markdown.ops(v));
                cells.add(Markdown.ratio(r.ratio(row, CEILING, b)));
                if (handWritten) {
                    cells.add(Markdown.ratio(r.ratio(row, SqlRows.HAND_WRITTEN, b)));
                }
            }
            t.row(cells.toArray());
        }
        return t;
    }

    private static Markdown.Table targets(
            List<Integer> batches, Map<ConsumerBench.Target, ConsumerBench.Results> results) {
        Markdown.Table t = new Markdown.Table("llrc", "database", "target", "measured", "met");
        for (Map.Entry<ConsumerBench.Target, ConsumerBench.Results> e : results.entrySet()) {
            String db = e.getKey().label;
            ConsumerBench.Results r = e.getValue();
            if (batches.contains(100)) {
                if (e.getKey() == ConsumerBench.Target.POSTGRESQL) {
                    target(t, db, "batch ≥ 5× per record, batch 100", r.ratio(BATCH, PER_RECORD, 100), 5);
                }
                target(t, db, "batch ≥ 0.8× ceiling, batch 100", r.ratio(BATCH, CEILING, 100), 0.8);
                if (r.runs.containsKey(EngineRow.ENGINE)) {
                    target(t, db, "batch engine ≥ 0.95× batch, batch 100", r.ratio(EngineRow.ENGINE, BATCH, 100), 0.95);
                }
                if (r.runs.containsKey(REDIS_BATCH)) {
                    target(t, db, "batch on Redis ≥ 0.8× ceiling, batch 100", r.ratio(REDIS_BATCH, CEILING, 100), 0.8);
                }
            }
            for (int b : batches) {
                if (b > 1 && r.runs.containsKey(SqlRows.PROCESSED_BATCH)) {
                    target(
                            t,
                            db,
                            "processed-table batch ≥ 0.9× hand-written processed table, batch " + b,
                            r.ratio(SqlRows.PROCESSED_BATCH, SqlRows.HAND_WRITTEN, b),
                            0.9);
                }
                if (b == 1 && r.runs.containsKey(SqlRows.PROCESSED_PER_RECORD)) {
                    for (String peer : List.of(SI, CAMEL)) {
                        target(
                                t,
                                db,
                                "processed table, poll of one ≥ 1.1× " + peer,
                                r.ratio(SqlRows.PROCESSED_PER_RECORD, peer, 1),
                                1.1);
                    }
                }
                if (r.runs.containsKey(RedisRows.SI_REDIS_PER_RECORD)) {
                    target(
                            t,
                            db,
                            "per record on Redis ≥ 1.0× " + RedisRows.SI_REDIS_PER_RECORD + ", batch " + b,
                            r.ratio(RedisRows.PER_RECORD_REDIS, RedisRows.SI_REDIS_PER_RECORD, b),
                            1.0);
                }
                if (r.runs.containsKey(RedisRows.SI_REDIS)) {
                    target(
                            t,
                            db,
                            "batch on Redis ≥ 1.0× " + RedisRows.SI_REDIS + ", batch " + b,
                            r.ratio(REDIS_BATCH, RedisRows.SI_REDIS, b),
                            1.0);
                }
                for (String peer : List.of(SI, CAMEL)) {
                    if (r.runs.containsKey(peer)) {
                        target(t, db, "batch ≥ 1.0× " + peer + ", batch " + b, r.ratio(BATCH, peer, b), 1.0);
                    }
                }
            }
        }
        return t;
    }

    private static void target(Markdown.Table t, String db, String what, double ratio, double goal) {
        if (Double.isNaN(ratio)) {
            return;
        }
        t.row(db, what, Markdown.ratio(ratio), ratio >= goal ? "✅" : "❌");
    }

    private static Markdown.Table rounds(
            List<Integer> batches, Map<ConsumerBench.Target, ConsumerBench.Results> results) {
        Markdown.Table t = new Markdown.Table("llrl", "database", "row", "batch", "rounds");
        results.forEach((target, r) -> r.runs.forEach((row, byBatch) -> {
            for (int b : batches) {
                List<ConsumerBench.Run> runs = byBatch.getOrDefault(b, List.of());
                t.row(
                        target.label,
                        row,
                        b,
                        runs.stream()
                                .map(x -> Markdown.ops(x.recordsPerSecond()) + (x.error() == null ? "" : " (error)"))
                                .collect(Collectors.joining(" · ")));
            }
        }));
        return t;
    }
}
