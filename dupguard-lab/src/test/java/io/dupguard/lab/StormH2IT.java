package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every workload on embedded H2 and in-memory stores: each naive strategy shows its failure, every
 * dupguard strategy holds. The seed is fixed and duplicates are sent on purpose (2 % double sends,
 * concurrent first uses, scripted platform failures and lease stalls), so the naive failures do not
 * depend on how loaded the machine is: slower only means more overlap.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class StormH2IT {
    @TempDir
    Path dir;

    @Test
    void naiveStrategiesFailAndDupguardStrategiesHoldInEveryWorkload() throws Exception {
        Path json = dir.resolve("storm.json");
        Path html = dir.resolve("storm.html");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "all",
                "--duration",
                "1s",
                "--clients",
                "24",
                "--seed",
                "7",
                "--json",
                json.toString(),
                "--html",
                html.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        Map<String, List<String>> expected = Expected.defaultWorkloads();
        expected.put("account-credit", List.of("increment-replayed", "lock-cas-retry-log", "dedup-table"));
        expected.put("lock-backends", Expected.localLockBackends());
        StormJson.assertNaiveFailAndDupguardHolds(StormJson.read(json), expected);
        assertThat(r.out())
                .contains("strategy", "dup effects", "ops/s", "p99")
                .contains("H2 (embedded, in-memory)")
                .contains("stale writes accepted", "orders charged twice")
                .contains("ok: every dupguard strategy had 0 duplicate effects");
        String page = Files.readString(html);
        assertThat(section(page, "account-binding")).contains("<svg class=\"chart duplicate-effects\"");
        assertThat(section(page, "balance-init"))
                .contains("<svg class=\"chart failures\"")
                .containsPattern("<title>retry-lock: [1-9][0-9,]* genuine attempts refused</title>")
                .containsPattern("<title>unique-key-no-reread: [1-9][0-9,]* attempts failed with an error</title>");
        assertThat(section(page, "form-submit"))
                .containsPattern("<title>throttle: [1-9][0-9,]* different submits refused</title>");
        assertThat(section(page, "lock-backends"))
                .contains("<svg class=\"chart stale-writes\"")
                .doesNotContain("duplicate-effects")
                .containsPattern("<title>jdbc-unfenced: [1-9][0-9,]* stale writes accepted</title>")
                .containsPattern("<title>jdbc-fenced: [1-9][0-9,]* stale writes refused</title>");
        assertThat(r.err())
                .as("one progress line per strategy when stderr is not a terminal")
                .contains("[1/30] account-binding/select-then-insert: ")
                .contains("[30/30] lock-backends/jdbc-fenced: ");
    }

    /** The HTML of one workload's section of the report. */
    private static String section(String page, String workload) {
        int start = page.indexOf("<section class=\"workload\" id=\"" + workload + "\">");
        assertThat(start).as("section %s", workload).isNotNegative();
        return page.substring(start, page.indexOf("</section>", start));
    }
}
