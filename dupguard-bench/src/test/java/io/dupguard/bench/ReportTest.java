package io.dupguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.bench.harness.CpuUsage;
import io.dupguard.bench.harness.LoadRun;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The idempotency report on made-up rounds: a page of medians that links every round's raw file. */
class ReportTest {

    /** One measured second of {@code ops} unique calls whose latencies are all 100 µs. */
    private static RunResult run(String impl, BenchImpl.Role role, int round, long ops, double foreignShare) {
        Histogram latency = new Histogram(3_600_000_000_000L, 3);
        latency.recordValueWithCount(100_000, ops);
        LoadRun load = new LoadRun(
                ops,
                1.0,
                latency,
                new Histogram(3_600_000_000_000L, 3),
                new long[] {ops, 0, 0},
                ops,
                ops / 16,
                ops / 16,
                0,
                null,
                new CpuUsage(0.5, 0.5, foreignShare, 1.0));
        return new RunResult(impl, role, Workload.UNIQUE, round, load);
    }

    private static final Report.ImplInfo LEAN =
            new Report.ImplInfo("hand-written lean", BenchImpl.Role.CEILING, "the lean row");
    private static final Report.ImplInfo DUPGUARD =
            new Report.ImplInfo("dupguard", BenchImpl.Role.DUPGUARD, "dupguard's row");

    /** dupguard 9,000 · 1,000 · 5,000 (median 5,000), the lean row 5,000 every round. */
    private static Report.StoreReport store(String title) {
        List<RunResult> runs = new ArrayList<>();
        long[] dupguard = {9_000, 1_000, 5_000};
        for (int round = 1; round <= 3; round++) {
            runs.add(run(DUPGUARD.name(), DUPGUARD.role(), round, dupguard[round - 1], round == 2 ? 0.4 : Double.NaN));
            runs.add(run(LEAN.name(), LEAN.role(), round, 5_000, 0));
        }
        List<Audit.Row> audit = List.of(new Audit.Row(DUPGUARD.name(), "2 statements", "1 statement", null));
        return new Report.StoreReport(title, title + " 1", List.of(LEAN, DUPGUARD), runs, audit, null);
    }

    private static Report.Context context() {
        return new Report.Context(
                "scripts/bench --targets postgresql,mariadb --rounds 3",
                BenchOptions.parse("--targets", "postgresql,mariadb", "--rounds", "3"),
                Map.of("CPU", "test", "Load average 1/5/15 min at start", "1.00 / 2.00 / 3.00"),
                Instant.parse("2026-01-01T00:00:00Z"),
                Duration.ofMinutes(7),
                List.of(store("PostgreSQL"), store("MariaDB")),
                "raw/benchmarks-idempotency-sql.csv");
    }

    @Test
    void thePageShowsMediansTheCommandMachineAndLoadAndLinksItsRawRounds() {
        String md = Report.markdown(context());

        assertThat(md)
                .contains("```\nscripts/bench --targets postgresql,mariadb --rounds 3\n```")
                .contains("| Load average 1/5/15 min at start | 1.00 / 2.00 / 3.00 |")
                .contains("[raw/benchmarks-idempotency-sql.csv](raw/benchmarks-idempotency-sql.csv)")
                .contains("| dupguard | unique | 5,000 | 100 | 100 | 1.00× ✅ |")
                .doesNotContain("by round")
                .doesNotContain("9,000") // a round that is not the median: only in the raw file
                .doesNotContain("Memory rows") // no memory target in this run
                .doesNotContain("**Redis**");
        assertThat(md.lines().filter(l -> l.startsWith("| dupguard | unique |")))
                .allSatisfy(l -> assertThat(l).endsWith(" | 0 % |"));
    }

    @Test
    void rowsAndTheAuditMethodAreDescribedOncePerPage() {
        String md = Report.markdown(context());

        assertThat(md)
                .containsOnlyOnce("dupguard's row")
                .contains("- **dupguard**: as described under PostgreSQL")
                .containsOnlyOnce("counted on one thread");
    }

    @Test
    void theRawFileHasEveryRoundOfEveryRow() {
        String csv = Report.raw(context(), "benchmarks-idempotency-sql.md").toString();

        assertThat(csv)
                .contains("\nPostgreSQL,dupguard,unique,1,9000,,ok\n"
                        + "PostgreSQL,dupguard,unique,2,1000,40,ok\n"
                        + "PostgreSQL,dupguard,unique,3,5000,,ok\n");
        assertThat(csv.lines().filter(l -> l.startsWith("MariaDB,"))).hasSize(6);
    }
}
