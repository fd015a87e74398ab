package io.dupguard.bench.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.dupguard.bench.harness.CpuUsage;
import io.dupguard.bench.harness.LoadRun;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.RawRounds;
import io.dupguard.bench.lock.LockBench.ImplInfo;
import io.dupguard.bench.lock.LockBench.StoreResult;
import io.dupguard.bench.lock.LockLoad.Mode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The lock report on made-up rounds: medians, not best rounds, and the text a reference reads. */
class LockReportTest {

    /** One measured second of {@code ops} cycles whose latencies are all {@code micros}. */
    private static LockRun run(String impl, LockImpl.Role role, Mode mode, int round, long ops, long micros) {
        return run(impl, role, mode, round, ops, micros, 0, 0.0);
    }

    private static LockRun run(
            String impl,
            LockImpl.Role role,
            Mode mode,
            int round,
            long ops,
            long micros,
            long overlaps,
            double foreignShare) {
        Histogram latency = new Histogram(3_600_000_000_000L, 3);
        latency.recordValueWithCount(micros * 1_000, ops);
        Histogram gap = new Histogram(3_600_000_000_000L, 3);
        LoadRun load = new LoadRun(
                ops,
                1.0,
                latency,
                gap,
                new long[8],
                ops,
                ops / 16,
                ops / 16,
                0,
                null,
                new CpuUsage(0.5, 0.5, foreignShare, 1.0));
        return new LockRun(impl, role, mode, round, load, overlaps);
    }

    private static final ImplInfo DUPGUARD =
            new ImplInfo(SqlLocks.DUPGUARD, LockImpl.Role.DUPGUARD, "dupguard's row.", "FIFO");
    private static final ImplInfo SPRING = new ImplInfo(SqlLocks.SPRING, LockImpl.Role.PEER, "Spring's row.", "polls");
    private static final ImplInfo SHEDLOCK =
            new ImplInfo(SqlLocks.SHEDLOCK, LockImpl.Role.PEER, "ShedLock's row.", "polls");
    private static final ImplInfo LEAN =
            new ImplInfo(LeaseRowLocks.LEAN, LockImpl.Role.CEILING, "The lean row.", "polls");

    /**
     * PostgreSQL, three rounds per row and mode. dupguard uncontended 9,000 · 1,000 · 5,000 (best
     * 9,000, median 5,000); the lean row 5,000 · 5,100 · 4,900 (median 5,000); Spring and ShedLock
     * 2,000 and 3,000 every round. Contended: dupguard 3,000, Spring 2,000, ShedLock 2,000.
     */
    private static StoreResult postgres() {
        List<LockRun> runs = new ArrayList<>();
        long[] dupguard = {9_000, 1_000, 5_000};
        long[] lean = {5_000, 5_100, 4_900};
        for (int round = 1; round <= 3; round++) {
            int i = round - 1;
            // p99 tells the rounds apart: 100 µs in round 1, 200 in round 2, 300 in round 3.
            runs.add(run(
                    SqlLocks.DUPGUARD,
                    LockImpl.Role.DUPGUARD,
                    Mode.UNCONTENDED,
                    round,
                    dupguard[i],
                    100L * round,
                    0,
                    round == 2 ? 0.4 : 0.01));
            runs.add(run(LeaseRowLocks.LEAN, LockImpl.Role.CEILING, Mode.UNCONTENDED, round, lean[i], 100));
            runs.add(run(SqlLocks.SPRING, LockImpl.Role.PEER, Mode.UNCONTENDED, round, 2_000, 100));
            runs.add(run(SqlLocks.SHEDLOCK, LockImpl.Role.PEER, Mode.UNCONTENDED, round, 3_000, 100));
            runs.add(run(SqlLocks.DUPGUARD, LockImpl.Role.DUPGUARD, Mode.CONTENDED, round, 3_000, 100));
            runs.add(run(LeaseRowLocks.LEAN, LockImpl.Role.CEILING, Mode.CONTENDED, round, 1_500, 100));
            runs.add(run(SqlLocks.SPRING, LockImpl.Role.PEER, Mode.CONTENDED, round, 2_000, 100));
            runs.add(run(SqlLocks.SHEDLOCK, LockImpl.Role.PEER, Mode.CONTENDED, round, 2_000, 100));
        }
        return new StoreResult(
                "PostgreSQL",
                "PostgreSQL 15",
                "9.00 / 8.00 / 7.00",
                List.of(DUPGUARD, SPRING, SHEDLOCK, LEAN),
                runs,
                List.of(),
                null);
    }

    @Test
    void aRowIsItsMedianRoundNotItsBest() {
        StoreResult s = postgres();
        var m = LockReport.median(s.runs(), SqlLocks.DUPGUARD, Mode.UNCONTENDED).orElseThrow();
        assertThat(m.value()).isEqualTo(5_000.0);
        assertThat(m.round().round()).isEqualTo(3);
        assertThat(m.round().p99Micros()).isCloseTo(300.0, within(0.5));
    }

    @Test
    void aFailedRoundIsLeftOutOfTheMedian() {
        List<LockRun> runs = List.of(
                run(SqlLocks.DUPGUARD, LockImpl.Role.DUPGUARD, Mode.CONTENDED, 1, 1_000, 100),
                run(SqlLocks.DUPGUARD, LockImpl.Role.DUPGUARD, Mode.CONTENDED, 2, 9_000, 100, 1, 0),
                run(SqlLocks.DUPGUARD, LockImpl.Role.DUPGUARD, Mode.CONTENDED, 3, 3_000, 100));
        var m = LockReport.median(runs, SqlLocks.DUPGUARD, Mode.CONTENDED).orElseThrow();
        assertThat(m.value()).isEqualTo(2_000.0); // the mean of the two rounds that did not fail
    }

    @Test
    void ratiosAndTargetsCompareMedians() {
        StoreResult s = postgres();
        assertThat(LockReport.ratio(s, SqlLocks.DUPGUARD, LeaseRowLocks.LEAN, Mode.UNCONTENDED, LockReport.THROUGHPUT))
                .contains(1.0);
        List<LockReport.Check> checks = LockReport.checks(s);
        // On best rounds dupguard would be 9,000 ÷ 5,100 = 1.76× the lean row; its median is 1.00×.
        assertThat(checks)
                .filteredOn(c -> c.what().contains("lean"))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.value()).isEqualTo("1.00×");
                    assertThat(c.met()).isTrue();
                    assertThat(c.target()).isTrue();
                });
        // Median 5,000 ÷ Spring's 2,000 = 2.50× (best round: 4.50×).
        assertThat(checks)
                .filteredOn(c -> c.mode() == Mode.UNCONTENDED && c.what().contains("Spring"))
                .singleElement()
                .satisfies(c -> assertThat(c.value()).isEqualTo("2.50×"));
        // Contended, the peers' ratios are shown, but they are not targets.
        assertThat(checks)
                .filteredOn(c -> c.mode() == Mode.CONTENDED && c.what().contains("ShedLock"))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.value()).isEqualTo("1.50×");
                    assertThat(c.met()).isTrue();
                    assertThat(c.target()).isFalse();
                });
        assertThat(checks)
                .filteredOn(c -> c.what().startsWith("no overlap"))
                .singleElement()
                .satisfies(c -> assertThat(c.met()).isTrue());
    }

    private static LockReport.Context context(String rawLink, StoreResult... stores) {
        return new LockReport.Context(
                "scripts/bench-locks --rounds 3",
                LockBenchOptions.parse("--rounds", "3"),
                Map.of("CPU", "test", MachineInfo.LOAD_AT_START, "9.00 / 8.00 / 7.00"),
                "9.00 / 8.00 / 7.00",
                "10.00 / 9.00 / 8.00",
                Instant.parse("2026-01-01T00:00:00Z"),
                Duration.ofMinutes(13),
                List.of(stores),
                rawLink);
    }

    /** The same rows on another store: MariaDB. */
    private static StoreResult mariadb() {
        StoreResult pg = postgres();
        return new StoreResult("MariaDB", "MariaDB 10", pg.loadAverage(), pg.impls(), pg.runs(), List.of(), null);
    }

    @Test
    void thePageShowsMediansTheCommandAndTheLoadLineAndLinksItsRawRounds() {
        String md = LockReport.markdown(context("raw/benchmarks-locks.csv", postgres()));

        assertThat(md)
                .contains("**median**")
                .contains("```\nscripts/bench-locks --rounds 3\n```")
                .contains("| Load average (1/5/15 min) | before: 9.00 / 8.00 / 7.00; after: 10.00 / 9.00 / 8.00 |")
                .doesNotContain(MachineInfo.LOAD_AT_START) // one load line
                .contains("[raw/benchmarks-locks.csv](raw/benchmarks-locks.csv)")
                .contains("Other processes used 0–40 % of the CPU in its measured windows")
                .contains("*(for information: the target is uncontended)*")
                .doesNotContain("every round (/s)")
                .doesNotContain("9,000") // a round that is not the median: only in the raw file
                .doesNotContainIgnoringCase("best round")
                .doesNotContainIgnoringCase("issue");
        // The median, with p99 of the round closest to it (round 3), not of the best round (round 1); the
        // row ends with the cores-busy cell.
        assertThat(md).contains("| **dupguard JdbcLockProvider** | 5,000 | 300 | 300 | ");
        assertThat(md.lines().filter(l -> l.startsWith("| **dupguard JdbcLockProvider** |")))
                .allSatisfy(l -> assertThat(l).endsWith(" | 1.00 |"));
    }

    @Test
    void rowsAreDescribedOncePerPage() {
        String md = LockReport.markdown(context("raw/benchmarks-locks.csv", postgres(), mariadb()));

        assertThat(md).containsOnlyOnce("dupguard's row.").contains("Rows: as described under PostgreSQL.");
    }

    @Test
    void theRawFileHasEveryRoundOfEveryRow() {
        String csv = LockReport.raw(context("raw/benchmarks-locks.csv", postgres()), "benchmarks-locks.md")
                .toString();

        assertThat(csv)
                .startsWith("# Every measured round behind benchmarks-locks.md, which shows each row's median.\n"
                        + "# Command: scripts/bench-locks --rounds 3\n# Started 2026-01-01T00:00:00 UTC.\n")
                .contains("\n" + RawRounds.COLUMNS + "\n")
                .contains("\nPostgreSQL,dupguard JdbcLockProvider,uncontended,1,9000,1,ok\n"
                        + "PostgreSQL,dupguard JdbcLockProvider,uncontended,2,1000,40,ok\n"
                        + "PostgreSQL,dupguard JdbcLockProvider,uncontended,3,5000,1,ok\n");
        // 4 rows × 2 modes × 3 rounds
        assertThat(csv.lines().filter(l -> l.startsWith("PostgreSQL,"))).hasSize(24);
    }
}
