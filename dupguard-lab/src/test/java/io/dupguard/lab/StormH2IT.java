package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short default storm on embedded H2 and in-memory stores: the naive strategies duplicate, every
 * dupguard strategy holds. The seed is fixed and duplicates are sent on purpose (2 % double sends),
 * so the naive failure does not depend on how loaded the machine is: slower only means more overlap.
 */
class StormH2IT {
    @TempDir
    Path dir;

    @Test
    void naiveStrategiesDuplicateAndDupguardStrategiesHold() throws Exception {
        Path json = dir.resolve("storm.json");
        LabCli.Result r =
                LabCli.run("storm", "--duration", "1s", "--clients", "24", "--seed", "7", "--json", json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put(
                "account-binding",
                List.of("select-then-insert", "unique-key-catch", "insert-ignore-reread", "lock", "idempotency"));
        expected.put(
                "payment",
                List.of("none", "select-then-insert", "idempotency-memory", "idempotency-jdbc", "idempotency-jdbc-tx"));
        StormJson.assertNaiveFailAndDupguardHolds(StormJson.read(json), expected);
        assertThat(r.out())
                .contains("strategy", "dup effects", "ops/s", "p99")
                .contains("H2 (embedded, in-memory)")
                .contains("ok: every dupguard strategy had 0 duplicate effects");
        assertThat(r.err())
                .as("one progress line per strategy when stderr is not a terminal")
                .contains("[1/10] account-binding/select-then-insert: ")
                .contains("[10/10] payment/idempotency-jdbc-tx: ");
    }
}
