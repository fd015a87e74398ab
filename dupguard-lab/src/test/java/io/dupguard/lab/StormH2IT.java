package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every workload on embedded H2 and in-memory stores: each naive strategy shows its failure, every
 * dupguard strategy holds. The seed is fixed and duplicates are sent on purpose (2 % double sends,
 * concurrent first uses, scripted platform failures and lease stalls), so the naive failures do not
 * depend on how loaded the machine is: slower only means more overlap.
 */
class StormH2IT {
    @TempDir
    Path dir;

    @Test
    void naiveStrategiesFailAndDupguardStrategiesHoldInEveryWorkload() throws Exception {
        Path json = dir.resolve("storm.json");
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
                json.toString());

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
        assertThat(r.err())
                .as("one progress line per strategy when stderr is not a terminal")
                .contains("[1/30] account-binding/select-then-insert: ")
                .contains("[30/30] lock-backends/jdbc-fenced: ");
    }
}
