package io.dupguard.bench.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.bench.harness.Cli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer benchmark at a tiny size, so that it does not rot: every row on PostgreSQL, MariaDB
 * and Redis at polls of 1 and 20 records, each run checked for exactly one effect per message (a
 * failed check makes the run exit 1), and the report written.
 */
class ConsumerBenchIT {

    @Test
    void feedRepeatsRecentMessagesAndCountsTheirIds() {
        Feed feed = Feed.build(3, 2000, 0.3, 1);
        List<ConsumerRecord<String, String>> records = feed.records;
        assertThat(records).hasSize(2000);
        assertThat(feed.distinctIds(0)).isZero();
        assertThat(feed.distinctIds(2000)).isEqualTo(Feed.ids(records).size()).isBetween(1300, 1500);
        assertThat(feed.distinctIds(500))
                .isEqualTo(Feed.ids(records.subList(0, 500)).size());
        assertThat(records.get(17).partition()).isEqualTo(3);
        assertThat(records.get(17).offset()).isEqualTo(17);
        // A re-sent message carries the same value: the fingerprint matches.
        Map<String, String> values = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
            assertThat(values.computeIfAbsent(Feed.id(r), id -> r.value())).isEqualTo(r.value());
        }
    }

    @Test
    void aThreadsRateCountsWholePollsBetweenTheirEnds() {
        long s = 1_000_000_000L; // one second in nanoseconds
        // Polls of 100 ending at 1.0, 1.5, 2.0, 2.5 s, window 0.9–2.6 s: 300 records in 1.5 s.
        assertThat(ConsumerBench.rate(List.of(s, 3 * s / 2, 2 * s, 5 * s / 2), 100, 0, 9 * s / 10, 13 * s / 5))
                .isEqualTo(200.0);
        // One long poll of 500 ended at 4 s, after the window: 500 records since the start.
        assertThat(ConsumerBench.rate(List.of(4 * s), 500, 0, s, 3 * s)).isEqualTo(125.0);
        assertThat(ConsumerBench.rate(List.of(), 500, 0, s, 3 * s)).isZero();
    }

    @Test
    void aRatioIsTheMedianOfTheRoundsRatiosNotARatioOfMedians() {
        ConsumerBench.Results r = new ConsumerBench.Results();
        // Row A and row B, three rounds each; the machine was twice as fast in round 2.
        double[][] rounds = {{90, 100}, {200, 200}, {80, 100}};
        ConsumerRow[] rows = {row("A"), row("B")};
        for (double[] round : rounds) {
            for (int i = 0; i < 2; i++) {
                r.add(rows[i], 100, new ConsumerBench.Run(round[i], 0, null));
            }
        }
        // Medians 90 and 100 would say 0.9; the rounds say 0.9, 1.0 and 0.8.
        assertThat(r.ratio("A", "B", 100)).isEqualTo(0.9);
        assertThat(r.ratio("B", "A", 100)).isEqualTo(100 / 90.0);
        assertThat(r.ratio("A", "missing", 100)).isNaN();
        assertThat(r.ratio("A", "B", 500)).isNaN();
    }

    private static ConsumerRow row(String name) {
        return new ConsumerRow(name, name, true, records -> {}, () -> {});
    }

    @Test
    void everyRowRunsAndTakesEffectOncePerMessage(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("consumer.md");
        ConsumerBench.Options o = Cli.parse(
                new ConsumerBench.Options(),
                "--targets",
                "postgresql,mariadb",
                "--batch-sizes",
                "1,20",
                "--threads",
                "2",
                "--rounds",
                "1",
                "--prewarm",
                "0",
                "--checkpoint",
                "false",
                "--warmup",
                "0",
                "--duration",
                "100ms",
                "--records",
                "20000",
                "--pg-url",
                System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
                "--mariadb-url",
                System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root"),
                "--redis-url",
                System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"),
                "--out",
                out.toString());

        assertThat(ConsumerBench.run(o, "scripts/bench-consumer (test)")).isZero();

        String report = Files.readString(out, StandardCharsets.UTF_8);
        for (String row : List.of(
                SqlRows.CEILING,
                "hand-written processed table",
                SqlRows.PER_RECORD,
                SqlRows.BATCH,
                SqlRows.PROCESSED_PER_RECORD,
                SqlRows.PROCESSED_BATCH,
                EngineRow.ENGINE,
                SqlRows.SI,
                SqlRows.CAMEL,
                "dupguard per record, Redis store",
                RedisRows.REDIS_BATCH,
                RedisRows.SI_REDIS,
                RedisRows.SI_REDIS_PER_RECORD)) {
            assertThat(report).contains("| " + row + " |");
        }
        assertThat(report).contains("### PostgreSQL", "### MariaDB", "## Targets", ConsumerBench.NOTES_MARKER);
        assertThat(report).doesNotContain("(error)");
    }
}
