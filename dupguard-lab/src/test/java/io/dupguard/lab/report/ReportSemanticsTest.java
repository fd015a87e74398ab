package io.dupguard.lab.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Family;
import io.dupguard.lab.storm.Observed;
import io.dupguard.lab.storm.StormReport;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyResult;
import io.dupguard.lab.storm.Workload;
import io.dupguard.lab.storm.WorkloadReport;
import io.dupguard.lab.storm.Workloads;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * What the reports say about failures that are not duplicate effects: a workload's charts show what
 * its naive strategies fail on, and refusals are counted in one named unit.
 */
class ReportSemanticsTest {
    private static final Pattern BAR =
            Pattern.compile("<rect class=\"bar\"[^>]* width=\"([0-9.]+)\"[^>]*><title>([^<]*)</title>");

    @Test
    void lockBackendsChartStaleWritesAcceptedAndRefusedInsteadOfDuplicateEffects() {
        WorkloadReport w = report(
                "lock-backends",
                result(
                        "jdbc-unfenced",
                        Family.NAIVE,
                        0,
                        0,
                        0,
                        Map.of("staleWritesAccepted", 52L, "staleWritesRefused", 0L)),
                result(
                        "jdbc-fenced",
                        Family.DUPGUARD,
                        0,
                        0,
                        52,
                        Map.of("staleWritesAccepted", 0L, "staleWritesRefused", 52L)));

        String html = HtmlReport.render(storm(w));

        assertThat(html).contains("<svg class=\"chart stale-writes\"").doesNotContain("chart duplicate-effects");
        Map<String, Double> bars = bars(html);
        assertThat(bars.get("jdbc-unfenced: 52 stale writes accepted")).isEqualTo(420.0);
        assertThat(bars.get("jdbc-fenced: 52 stale writes refused")).isEqualTo(420.0);
        assertThat(bars.get("jdbc-fenced: 0 stale writes accepted")).isEqualTo(3.0);
        assertThat(html).contains("stale writes accepted</text>", "stale writes refused</text>");
    }

    @Test
    void balanceInitChartShowsRefusalsAndErrorsNextToDuplicateEffects() {
        Map<String, Long> none = Map.of("genuineAttemptsRefused", 0L);
        WorkloadReport w = report(
                "balance-init",
                result("select-then-insert", Family.NAIVE, 700, 0, 0, none),
                result("unique-key-no-reread", Family.NAIVE, 0, 2_000, 0, none),
                result("retry-lock", Family.NAIVE, 0, 0, 300, Map.of("genuineAttemptsRefused", 280L)),
                result("insert-if-absent", Family.DUPGUARD, 0, 0, 20, none));

        Map<String, Double> bars = bars(HtmlReport.render(storm(w)));

        assertThat(bars.get("unique-key-no-reread: 2,000 attempts failed with an error"))
                .isEqualTo(420.0);
        assertThat(bars.get("retry-lock: 280 genuine attempts refused")).isGreaterThan(50.0);
        assertThat(bars.get("select-then-insert: 700 duplicate effects")).isGreaterThan(100.0);
        assertThat(bars)
                .containsEntry("insert-if-absent: 0 duplicate effects", 3.0)
                .containsEntry("insert-if-absent: 0 genuine attempts refused", 3.0)
                .containsEntry("insert-if-absent: 0 attempts failed with an error", 3.0);
    }

    @Test
    void duplicateStormWorkloadsKeepTheDuplicateEffectsChart() {
        WorkloadReport w = report(
                "payment",
                result("none", Family.NAIVE, 300, 0, 0, Map.of()),
                result("idempotency-jdbc", Family.DUPGUARD, 0, 0, 49, Map.of()));

        String html = HtmlReport.render(storm(w));

        assertThat(html).contains("<svg class=\"chart duplicate-effects\"", "300 (30.0 %)");
        assertThat(bars(html)).containsEntry("none: 300 duplicate effects", 420.0);
    }

    @Test
    void aChartOfAnUnknownCountFailsNamingIt() {
        StrategyResult r = result("none", Family.NAIVE, 1, 0, 0, Map.of("ordersChargedTwice", 1L));
        assertThatThrownBy(() -> r.count("requestsRefused"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'requestsRefused'")
                .hasMessageContaining("ordersChargedTwice");
    }

    @Test
    void theTableCountsRefusalsInAttemptsAndSaysSo() {
        WorkloadReport w = report(
                "balance-init",
                result("retry-lock", Family.NAIVE, 0, 0, 300, Map.of("genuineAttemptsRefused", 280L)),
                result("insert-if-absent", Family.DUPGUARD, 0, 0, 20, Map.of("genuineAttemptsRefused", 0L)));
        StringWriter out = new StringWriter();

        TextReport.print(storm(w), new PrintWriter(out, true));

        String text = out.toString();
        assertThat(text.lines().filter(l -> l.contains("strategy") && l.contains("family")))
                .singleElement()
                .satisfies(header -> assertThat(header)
                        .contains("  attempts refused  ")
                        .doesNotContainPattern("(?<!attempts) refused"));
        assertThat(text)
                .containsPattern("\n  retry-lock +genuine attempts refused 280\n")
                .doesNotContain("requests refused");
        assertThat(HtmlReport.render(storm(w))).contains("<th>attempts refused</th>");
    }

    @Test
    void aLimitRowSaysWhatTheFaultDid() {
        WorkloadReport w = report(
                "payment",
                faulted("idempotency-jdbc-tx", "pg-failover-second-primary"),
                faulted("idempotency-jdbc-tx", "pg-failover"));
        StringWriter out = new StringWriter();

        TextReport.print(storm(w), new PrintWriter(out, true));

        List<String> limits =
                out.toString().lines().filter(l -> l.startsWith("  LIMIT ")).toList();
        assertThat(limits).hasSize(2);
        assertThat(limits.get(0))
                .contains("@pg-failover-second-primary")
                .contains("the old primary came back as a second primary")
                .doesNotContain("a durability limit");
        assertThat(limits.get(1)).contains("@pg-failover:").contains("(a durability limit: this store setting");
    }

    /** A dupguard row with 3 duplicate effects under {@code fault}, on a setting that cannot keep the promise. */
    private static StrategyResult faulted(String name, String fault) {
        Histogram latency = new Histogram(3_600_000_000L, 3);
        latency.recordValue(5_000);
        Observed seen = new Observed(
                1_000, 1_000, 1_100, 100, 0, 0, "", 0, 0, 0, latency, 1_000_000_000L, List.of(), List.of());
        Effects found = new Effects(3, 0, 0, "", List.of(), Map.of());
        return StrategyResult.of(
                new Strategy(name, Family.DUPGUARD, "what " + name + " does", Set.of()), seen, found, fault, false);
    }

    private static Map<String, Double> bars(String html) {
        Map<String, Double> out = new LinkedHashMap<>();
        Matcher m = BAR.matcher(html);
        while (m.find()) {
            out.put(m.group(2), Double.valueOf(m.group(1)));
        }
        return out;
    }

    private static WorkloadReport report(String workload, StrategyResult... results) {
        Workload w = Workloads.named(workload).orElseThrow();
        return new WorkloadReport(w.name(), w.summary(), List.of(results), w.charts());
    }

    private static StormReport storm(WorkloadReport w) {
        StormReport.Setup setup = new StormReport.Setup(
                "test", 8, 1000, 42, 40, 3, 0.02, 0.01, 0.01, "log-normal", "H2", "", "", "", "jdbc");
        return new StormReport(List.of(w), setup, 1.0, true);
    }

    private static StrategyResult result(
            String name, Family family, long duplicateEffects, long errors, long refused, Map<String, Long> metrics) {
        Histogram latency = new Histogram(3_600_000_000L, 3);
        latency.recordValue(5_000);
        Observed seen = new Observed(
                1_000,
                1_000,
                1_100 + errors,
                100,
                refused,
                errors,
                errors > 0 ? "SQLException: duplicate key" : "",
                0,
                0,
                0,
                latency,
                1_000_000_000L,
                List.of(),
                List.of());
        Effects found = new Effects(duplicateEffects, 0, 0, "", List.of(), metrics);
        return StrategyResult.of(new Strategy(name, family, "what " + name + " does", Set.of()), seen, found);
    }
}
